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
/// handled interval events) to the JSON files of `local`.
///
/// A folder of the single-device layout (`DATA_DIR/store/<suite>.json`) is
/// migrated once, losslessly, before anything reads it: each shared suite's
/// values become this device's first changes, its old file is replaced by
/// a stub of a newer version (so an older retime refuses the folder with a
/// clear error rather than show stale data), and `layout.json` records the
/// layout. A folder of a newer layout than this retime knows is refused.
public final class DataFolderStore: KeyValueStore {
    /// The passcode's state (`auth`) is not among them yet: an append-only
    /// log would keep a removed hash on disk (issue 28 removes it), so it
    /// stays with the machine until logs can be compacted.
    public static let sharedSuites: Set<String> = ["groups", "schedules", "config", "session"]
    /// The layout written in `layout.json`: 2, per-device change logs.
    public static let layoutVersion = 2

    public let shared: ReplicatedLogStore
    public let local: JSONFileStore
    /// `DATA_DIR/store`, where the single-device layout kept every suite.
    public let legacy: JSONFileStore
    private let root: String
    private let prepared = Mutex(false)

    public init(root: String, shared: ReplicatedLogStore, local: JSONFileStore, legacy: JSONFileStore) {
        self.root = root
        self.shared = shared
        self.local = local
        self.legacy = legacy
    }

    /// The store of the data folder at `root`, as the device `deviceID`
    /// (asked only when something is written).
    public static func open(root: String, deviceID: @escaping @Sendable () throws -> String,
                            now: @escaping @Sendable () -> Date) -> DataFolderStore {
        let files = JSONFileStore(directory: root + "/store")
        return DataFolderStore(root: root, shared: .dataFolder(devices: root + "/devices", deviceID: deviceID, now: now),
                               local: files, legacy: files)
    }

    /// `DATA_DIR/layout.json`.
    public var layoutFile: String { root + "/layout.json" }

    public func values(of suite: String) throws -> [String: JSONValue] {
        guard Self.sharedSuites.contains(suite) else { return try local.values(of: suite) }
        try prepare()
        return try shared.values(of: suite)
    }

    public func update<Result>(_ suite: String, durability: WriteDurability,
                               _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        guard Self.sharedSuites.contains(suite) else { return try local.update(suite, durability: durability, body) }
        try prepare()
        return try shared.update(suite, durability: durability, body)
    }

    public func register(defaults: [String: JSONValue], in suite: String) {
        store(of: suite).register(defaults: defaults, in: suite)
    }

    public func defaults(of suite: String) -> [String: JSONValue] {
        store(of: suite).defaults(of: suite)
    }

    public func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let sources = [shared.changes(), local.changes()]
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

    public func settle(_ suite: String, key: String, value: JSONValue) throws {
        guard Self.sharedSuites.contains(suite) else { return }
        try shared.settle(suite, key: key, value: value)
    }

    public func discardBackups(of suite: String) throws {
        try local.discardBackups(of: suite)
        try legacy.discardBackups(of: suite)
    }

    /// Drops what both stores keep parsed.
    public func forgetParsedSuites() {
        shared.forgetParsedSuites()
        local.forgetParsedSuites()
    }

    /// A fingerprint of `suite` that moves with every change of it, on any device.
    public func stamp(of suite: String) -> AnyHashable? {
        Self.sharedSuites.contains(suite) ? AnyHashable(shared.stamp(of: suite)) : (try? local.stamp(of: suite)).map(AnyHashable.init)
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

    private func store(of suite: String) -> any KeyValueStore {
        Self.sharedSuites.contains(suite) ? shared : local
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
            let old = try SuiteFile.decode(bytes, path: path).values
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
