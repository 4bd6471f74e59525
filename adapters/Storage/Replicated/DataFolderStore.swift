#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
import Synchronization
#endif

/// The store of one data folder, as every retime process reads and writes
/// it: the suites a person shares between devices (groups, schedules,
/// settings, the session slot) go to the replicated
/// logs, every other suite (the machine's own: the `none` shield's record,
/// handled interval events, the per-machine settings) to the JSON files of
/// `local()`, in this device's folder (`devices/<id>/store/`).
///
/// A folder of the single-device layout (`DATA_DIR/store/<suite>.json`) is
/// migrated once, losslessly, before anything reads it: each shared suite's
/// values become this device's first changes, its old file is replaced by
/// a stub of a newer version (so an older retime refuses the folder with a
/// clear error rather than show stale data), and `layout.json` records the
/// layout. A folder of a newer layout than this retime knows is refused.
public final class DataFolderStore: KeyValueStore {
    /// The passcode's state (`auth`) is not among them: its hash is shared
    /// through each device's `passcode.json`, rewritten whole so no removed
    /// hash stays on disk (`SharedAuthState`), and its lockout is the machine's.
    public static let sharedSuites: Set<String> = ["groups", "schedules", "config", "session", "allowances"]
    /// The layout written in `layout.json`: 2, per-device change logs.
    public static let layoutVersion = 2

    public let shared: ReplicatedLogStore
    /// This device's folder, when the store was opened on a data folder
    /// (`open`): everything else of the machine's resolves it too.
    public let device: LocalDeviceFolder?
    /// The suite of the settings that belong to the machine (`shield`,
    /// `shield.hostsFile`, `hooks.dir`, `log.level`), kept in `local()`.
    public static let machineSuite = StoreSettings.machineSuite
    /// This machine's store, built when first used: its folder is named by
    /// the device id, which is read (or created) only then, and the old
    /// layout's machine files are moved there first (`LocalDeviceFolder`).
    private let resolveLocal: @Sendable () throws -> JSONFileStore
    private let resolvedLocal = Mutex<JSONFileStore?>(nil)
    private let localDefaults = Mutex<[String: [String: JSONValue]]>([:])
    /// `DATA_DIR/store`, where the single-device layout kept every suite.
    public let legacy: JSONFileStore
    private let root: String
    private let prepared = Mutex(false)

    public convenience init(root: String, shared: ReplicatedLogStore, local: JSONFileStore, legacy: JSONFileStore) {
        self.init(root: root, shared: shared, local: { local }, legacy: legacy, device: nil)
    }

    /// `local` is asked for the machine's store when a machine suite is
    /// first read or written, once.
    public init(root: String, shared: ReplicatedLogStore, local: @escaping @Sendable () throws -> JSONFileStore, legacy: JSONFileStore,
                device: LocalDeviceFolder? = nil) {
        self.device = device
        self.root = root
        self.shared = shared
        self.resolveLocal = local
        self.legacy = legacy
    }

    /// The store of the data folder at `root`, as the device `device` (whose
    /// id is asked only when something is written or a machine suite read):
    /// the machine's suites in `devices/<id>/store/`.
    /// `boot`: the boot-time clock beside `now` (each write's `clockMark`).
    public static func open(root: String, device: LocalDeviceFolder, now: @escaping @Sendable () -> Date,
                            boot: @escaping @Sendable () -> BootTimeReading? = { nil }) -> DataFolderStore {
        DataFolderStore(root: root, shared: .dataFolder(devices: root + "/devices", deviceID: { try device.id() }, now: now, boot: boot),
                        local: { JSONFileStore(directory: root + "/devices/" + (try device.id()) + "/store") },
                        legacy: JSONFileStore(directory: root + "/store"), device: device)
    }

    /// The same where only the old layout's machine suite files move (the
    /// storage tests' folders; a retime process's device moves its logs too).
    public static func open(root: String, deviceID: @escaping @Sendable () throws -> String,
                            now: @escaping @Sendable () -> Date) -> DataFolderStore {
        let moves: @Sendable (String) -> [LocalDeviceFolder.Move] = { id in
            ["shield", "intervals", "auth"].map { LocalDeviceFolder.Move(from: root + "/store", to: root + "/devices/" + id + "/store", name: $0 + ".json") }
        }
        return open(root: root, device: LocalDeviceFolder(deviceID: deviceID, moves: moves), now: now)
    }

    /// This machine's store (`devices/<id>/store/`), its `machine` suite
    /// seeded on first use (`seedMachineSuite`).
    public func local() throws -> JSONFileStore {
        if let store = resolvedLocal.withLock({ $0 }) { return store }
        let store = try resolveLocal()
        for (suite, defaults) in localDefaults.withLock({ $0 }) { store.register(defaults: defaults, in: suite) }
        try seedMachineSuite(store)
        return resolvedLocal.withLock { cached in
            if let cached { return cached }
            cached = store
            return store
        }
    }

    /// `DATA_DIR/layout.json`.
    public var layoutFile: String { root + "/layout.json" }

    public func values(of suite: String) throws -> [String: JSONValue] {
        guard Self.sharedSuites.contains(suite) else { return try local().values(of: suite) }
        try prepare()
        return try shared.values(of: suite)
    }

    public func storedValue(forKey key: String, in suite: String) throws -> JSONValue? {
        guard Self.sharedSuites.contains(suite) else { return try local().storedValue(forKey: key, in: suite) }
        try prepare()
        return try shared.storedValue(forKey: key, in: suite)
    }

    public func values(of suite: String, members: Set<String>) throws -> [String: JSONValue] {
        guard Self.sharedSuites.contains(suite) else { return try local().values(of: suite, members: members) }
        try prepare()
        return try shared.values(of: suite, members: members)
    }

    public func storedValue(forKey key: String, in suite: String, members: Set<String>) throws -> JSONValue? {
        guard Self.sharedSuites.contains(suite) else { return try local().storedValue(forKey: key, in: suite, members: members) }
        try prepare()
        return try shared.storedValue(forKey: key, in: suite, members: members)
    }

    public func update<Result>(_ suite: String, durability: WriteDurability,
                               _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        guard Self.sharedSuites.contains(suite) else { return try local().update(suite, durability: durability, body) }
        try prepare()
        return try shared.update(suite, durability: durability, body)
    }

    public func register(defaults: [String: JSONValue], in suite: String) {
        guard !Self.sharedSuites.contains(suite) else { return shared.register(defaults: defaults, in: suite) }
        localDefaults.withLock { $0[suite] = defaults }
        resolvedLocal.withLock { $0 }?.register(defaults: defaults, in: suite)
    }

    public func defaults(of suite: String) -> [String: JSONValue] {
        Self.sharedSuites.contains(suite) ? shared.defaults(of: suite) : localDefaults.withLock { $0[suite] ?? [:] }
    }

    public func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let sources = [shared.changes()] + ((try? local()).map { [$0.changes()] } ?? [])
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for source in sources {
                    group.addTask { for await suite in source { continuation.yield(suite) } }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func unseen(_ suite: String, key: String) throws -> [JSONValue] {
        guard Self.sharedSuites.contains(suite) else { return [] }
        try prepare()
        return try shared.unseen(suite, key: key)
    }

    public func lastValue(_ suite: String, key: String) throws -> JSONValue? {
        guard Self.sharedSuites.contains(suite) else { return nil }
        try prepare()
        return try shared.lastValue(suite, key: key)
    }

    public func valueRemovedElsewhere(_ suite: String, key: String) throws -> JSONValue? {
        guard Self.sharedSuites.contains(suite) else { return nil }
        try prepare()
        return try shared.valueRemovedElsewhere(suite, key: key)
    }

    public func hasEnded(_ suite: String, key: String, identity: String) throws -> Bool {
        guard Self.sharedSuites.contains(suite) else { return false }
        try prepare()
        if try shared.hasEnded(suite, key: key, identity: identity) { return true }
        // A thing removed for good leaves no trace once the device that
        // removed it has removed more (compaction keeps its last few
        // removals), and a cancelled session none in history: what this
        // machine raised its block from tells, if that log dropped it.
        // (A record that does not read only leaves such a block up.)
        guard case .object(let source)? = (try? local().storedValue(forKey: suite + "/" + key, in: Self.sourcesSuite)) ?? nil,
              source["identity"] == .string(identity), case .string(let text)? = source["at"], let stamp = HybridTimestamp(text: text) else {
            return false
        }
        return try shared.dropped(suite, key: key, identity: identity, at: stamp)
    }

    /// The machine's suite that keeps, per key of a shared suite, the
    /// value this machine's block was last raised from (`rememberSource`).
    static let sourcesSuite = "raised-from"

    public func rememberSource(_ suite: String, key: String, identity: String) throws {
        guard Self.sharedSuites.contains(suite) else { return }
        try prepare()
        guard let stamp = try shared.lastStamp(suite, key: key, identity: identity) else { return }
        let source = JSONValue.object(["identity": .string(identity), "at": .string(stamp.description)])
        // Lost to a crash, it only leaves a block up that a later command
        // could have lowered, as before it was kept.
        try local().update(Self.sourcesSuite, durability: .repairable) { $0[suite + "/" + key] = source }
    }

    public func leavesOut(_ suite: String) throws -> Bool {
        guard Self.sharedSuites.contains(suite) else { return false }
        try prepare()
        return try shared.leavesOut(suite)
    }

    public func lastValue(_ suite: String, key: String, identity: String) throws -> JSONValue? {
        guard Self.sharedSuites.contains(suite) else { return nil }
        try prepare()
        return try shared.lastValue(suite, key: key, identity: identity)
    }

    public func settle(_ suite: String, key: String, value: JSONValue) throws {
        guard Self.sharedSuites.contains(suite) else { return }
        try shared.settle(suite, key: key, value: value)
    }

    public func discardBackups(of suite: String) throws {
        try local().discardBackups(of: suite)
        try legacy.discardBackups(of: suite)
    }

    /// Drops what both stores keep parsed.
    public func forgetParsedSuites() {
        shared.forgetParsedSuites()
        resolvedLocal.withLock { $0 }?.forgetParsedSuites()
    }

    /// A fingerprint of `suite` that moves with every change of it, on any device.
    public func stamp(of suite: String) -> AnyHashable? {
        Self.sharedSuites.contains(suite) ? AnyHashable(shared.stamp(of: suite)) : (try? local().stamp(of: suite)).map(AnyHashable.init)
    }

    /// Whether a suite file of the old layout still holds its suite (not
    /// yet migrated), rather than the stub the migration left.
    public func holdsUnmigrated(_ suite: String) -> Bool {
        guard let path = try? legacy.path(of: suite), let bytes = try? POSIXFiles.read(path) else { return false }
        return !Self.isMovedStub(bytes)
    }

    static func isMovedStub(_ bytes: [UInt8]) -> Bool {
        guard case .object(let members)? = try? JSONText.parse(bytes), case .int(let version)? = members["version"] else { return false }
        return version == Int64(layoutVersion) && members["movedTo"] != nil
    }

    /// The machine keys this device itself wrote to the shared `config`
    /// log (by a build before they became the machine's), the latest of
    /// each: other devices' values for them are theirs, never taken. Read
    /// from this device's own log beside `store` (`devices/<id>/changes/`);
    /// a line that cannot be read is passed over, as the log's readers do.
    private func ownSettings(besides store: JSONFileStore) throws -> [String: JSONValue] {
        let log = POSIXFiles.parentDirectory(of: store.directory) + "/changes/" + StoreSettings.suite + ".jsonl"
        guard let bytes = try POSIXFiles.read(log) else { return [:] }
        var latest: [String: (at: HybridTimestamp, value: JSONValue?)] = [:]
        for line in bytes.split(separator: 0x0A) {
            guard let changes = try? ChangeLine.decode(Array(line)) else { continue }
            for change in changes where StoreSettings.machineKeys.contains(change.record) {
                if let seen = latest[change.record], seen.at > change.at { continue }
                switch change.kind {
                case .set(ChangeLine.wholeValue, let value): latest[change.record] = (change.at, value)
                case .delete: latest[change.record] = (change.at, nil)
                default: continue
                }
            }
        }
        return latest.compactMapValues(\.value)
    }

    /// Gives a machine its per-machine settings the first time its store
    /// is used (no `machine.json` yet): from the old layout's
    /// `store/config.json` while it still holds them, else from what this
    /// device wrote of them to the shared `config` log (`ownSettings`). Once the file
    /// exists the shared values of these keys are never read again: each
    /// machine keeps its own.
    private func seedMachineSuite(_ store: JSONFileStore) throws {
        guard access(try store.path(of: Self.machineSuite), F_OK) != 0 else { return }
        var found: [String: JSONValue] = [:]
        let legacyConfig = try legacy.path(of: "config")
        if let bytes = try POSIXFiles.read(legacyConfig), !Self.isMovedStub(bytes) {
            found = try SuiteFile.decode(bytes, path: legacyConfig).values
        } else {
            found = try ownSettings(besides: store)
        }
        try store.update(Self.machineSuite) { values in
            for key in StoreSettings.machineKeys { if values[key] == nil, let value = found[key] { values[key] = value } }
        }
    }

    /// Checks the folder's layout and migrates a single-device one, once
    /// per process.
    func prepare() throws {
        if prepared.withLock({ $0 }) { return }
        if let bytes = try POSIXFiles.read(layoutFile, limit: 4_096) {
            guard case .object(let members)? = try? JSONText.parse(bytes), members["format"] == .string("retime.data"),
                  case .int(let version)? = members["version"] else {
                throw StoreError.corrupted(path: layoutFile, reason: "not a retime layout file")
            }
            guard version <= Self.layoutVersion else { throw StoreError.unsupportedVersion(path: layoutFile, version: Int(clamping: version)) }
        } else {
            try migrate()
        }
        prepared.withLock { $0 = true }
    }

    /// Moves each shared suite of the single-device layout into this
    /// device's logs. Safe to run again after a crash at any instant: a
    /// suite already stubbed is skipped, and values already in the logs
    /// are not written twice.
    private func migrate() throws {
        for suite in Self.sharedSuites.sorted() {
            let path = try legacy.path(of: suite)
            guard let bytes = try POSIXFiles.read(path), !Self.isMovedStub(bytes) else { continue }
            // The bytes just read, not the file again: another process
            // migrating at the same time may have stubbed it since.
            var old = try SuiteFile.decode(bytes, path: path).values
            if suite == StoreSettings.suite {
                // The machine's settings stay with this machine, never in the shared log.
                let machine = old.filter { StoreSettings.machineKeys.contains($0.key) }
                try local().update(Self.machineSuite) { values in
                    for (key, value) in machine where values[key] == nil { values[key] = value }
                }
                old = old.filter { !StoreSettings.machineKeys.contains($0.key) }
            }
            try shared.update(suite) { values in
                for (key, value) in old where values[key] == nil { values[key] = value }
            }
            let stub = JSONValue.object(["format": .string("retime.suite"), "version": .int(Int64(Self.layoutVersion)),
                                         "values": .object([:]), "movedTo": .string("devices/*/changes/\(suite).jsonl")])
            try POSIXFiles.writeAtomically(try JSONText.pretty(stub) + [0x0A], to: path)
        }
        // A folder that does not exist yet stays so until a command saves something.
        guard FileManager.default.fileExists(atPath: root) else { return }
        let layout = JSONValue.object(["format": .string("retime.data"), "version": .int(Int64(Self.layoutVersion))])
        try POSIXFiles.writeAtomically(try JSONText.pretty(layout) + [0x0A], to: layoutFile)
    }
}
