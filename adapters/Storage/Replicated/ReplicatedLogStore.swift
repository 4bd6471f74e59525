#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
import Synchronization
#endif

/// The key-value store of a data folder that several devices share through
/// a folder-sync tool (Syncthing, Nextcloud, rsync): each device appends its
/// own changes to its own logs, `devices/<id>/changes/<suite>.jsonl`, and
/// every reader merges all devices' logs with `ReplicatedRecords` (per field,
/// ordered by the hybrid clock; docs/storage.md, "Devices"). No device ever
/// writes another's file, so a sync tool never has two versions of one file
/// to choose between.
///
/// - Reads take no lock: logs only grow by whole lines (a torn last line,
///   left by a crash, is not read), and a suite is merged again only when
///   one of its files' stamps moved.
/// - `update` locks this device's log of the suite (`flock`), merges every
///   log as it is now, runs the change, and appends the changes it made,
///   one line per field, `fsync`ed.
/// - Conflict copies a sync tool made of a log (`<suite>.sync-conflict-*.jsonl`)
///   are read as more lines of their device: merging is a union.
/// - A line of this device's own log that cannot be read is a `StoreError`
///   naming the file and line, never skipped; another device's log that
///   does not read is left out of the merge, whole, until it reads
///   (`ChangeLogReader.unreadable`, named by `sync status`).
public final class ReplicatedLogStore: KeyValueStore {
    /// `DATA_DIR/devices`.
    public let directory: String
    public let lockTimeout: Double
    /// Every this many lines of its own log, a device looks at compacting
    /// it (0: never, for tests that compare).
    public let compactionInterval: Int
    /// Shorter intervals for some suites (see `dataFolder`).
    let compactionIntervals: [String: Int]
    let deviceID: @Sendable () throws -> String
    let now: @Sendable () -> Date
    /// The boot-time clock beside `now`, for each write's `clockMark`.
    let boot: @Sendable () -> BootTimeReading?
    let shapes: @Sendable (String) -> RecordJSON
    /// Per suite of whole values that end, how to tell (see `WholeValueEnding`).
    let endings: [String: WholeValueEnding]
    /// Registered defaults and change observers (this process only).
    private let side = StoreSideTables()
    /// Each suite as this process last merged it.
    let cache = Mutex<[String: Merged]>([:])
    /// Values this process took from a snapshot, by the stamps of the logs
    /// it was checked against.
    let served = Mutex<[String: (stamps: [String: POSIXFiles.FileStamp], snapshot: SuiteSnapshot)]>([:])
    /// `devices/` and each device's `changes/`, listed once while unchanged.
    let listings = FolderListings()
    private let devicesFolder: FolderListings.Folder
    /// What `logFiles` made of the listings last time: the device folders'
    /// paths, and per suite its files (by the listings they came from).
    let suiteFiles = Mutex<(folders: (devices: [String], paths: [FolderListings.Folder])?,
                                    files: [String: (devices: [String], listed: [[String]], files: [String])])>((nil, [:]))
    /// Suites this process changed, whose snapshot it makes once it is
    /// done with the store (`forgetParsedSuites`), so the next command
    /// finds it current instead of merging every log and making it.
    let changedSuites = Mutex<Set<String>>([])
    /// Suites whose log this process's writes took past a compaction
    /// interval (or, in a whole-value suite, gave a value where there was
    /// none): compacted at its next write of the suite, or in
    /// `forgetParsedSuites`.
    let compactionDue = Mutex<Set<String>>([])
    /// Suites this process wrote: the last good copy of this device's log
    /// of each is kept when it is done (`keepGoodCopy`).
    let wroteSuites = Mutex<Set<String>>([])
    /// This device's log of a suite as a write from a snapshot left it, by
    /// its stamp then: every line of it reads, so it is the good copy.
    let goodLogs = Mutex<[String: (stamp: POSIXFiles.FileStamp, bytes: [UInt8])]>([:])
    /// The logs a check of a snapshot read and hashed, by path: a write
    /// from that snapshot takes their lines from here while their stamps
    /// hold (`snapshotBase`), as a read takes the snapshot.
    let checkedLogs = Mutex<[String: SuiteSnapshot.WholeLines]>([:])

    /// A suite merged from its logs, with how far each was read.
    struct Merged {
        var reader: ChangeLogReader
        var values: [String: JSONValue]
        /// The keys `WholeValueEnding` emptied, each with the stamp of the
        /// delete that removed its thing for good, and the stamps of every
        /// value it removed so.
        var removed: [String: HybridTimestamp] = [:]
        var hidden: Set<HybridTimestamp> = []
        var records: ReplicatedRecords<JSONValue> { reader.records }
    }

    /// - Parameters:
    ///   - setFields: per suite, the object members merged per element.
    ///   - wholeValueSuites: suites whose values are never merged per field.
    ///   - now: the wall clock the hybrid clock follows.
    public init(directory: String, deviceID: @escaping @Sendable () throws -> String, now: @escaping @Sendable () -> Date,
                boot: @escaping @Sendable () -> BootTimeReading? = { nil },
                setFields: [String: Set<String>] = [:], wholeValueSuites: Set<String> = [], lockTimeout: Double = 5,
                compactionInterval: Int = 64, compactionIntervals: [String: Int] = [:], endings: [String: WholeValueEnding] = [:]) {
        self.endings = endings
        self.compactionInterval = compactionInterval
        self.compactionIntervals = compactionIntervals
        self.directory = directory
        devicesFolder = FolderListings.Folder(directory)
        self.deviceID = deviceID
        self.now = now
        self.boot = boot
        self.lockTimeout = lockTimeout
        shapes = { suite in RecordJSON(setFields: setFields[suite] ?? [], wholeValues: wholeValueSuites.contains(suite)) }
    }

    public func values(of suite: String) throws -> [String: JSONValue] {
        switch try readState(suite) {
        case .merged(let state): return state.values
        case .snapshot(let snapshot):
            do { return try snapshot.values.values() } catch { return try fromLogs(suite).values }
        }
    }

    /// One value, read alone from a snapshot that serves the suite (its
    /// other values left unparsed): a `stop` asks one group's name.
    public func storedValue(forKey key: String, in suite: String) throws -> JSONValue? {
        switch try readState(suite) {
        case .merged(let state): return state.values[key]
        case .snapshot(let snapshot):
            do { return try snapshot.values.value(key) } catch { return try fromLogs(suite).values[key] }
        }
    }

    /// From a snapshot, each value's other members passed over unparsed.
    public func values(of suite: String, members: Set<String>) throws -> [String: JSONValue] {
        switch try readState(suite) {
        case .merged(let state): return state.values.mapValues { $0.narrowed(to: members) }
        case .snapshot(let snapshot):
            do { return try snapshot.values.values(members: members) } catch { return try fromLogs(suite).values.mapValues { $0.narrowed(to: members) } }
        }
    }

    public func storedValue(forKey key: String, in suite: String, members: Set<String>) throws -> JSONValue? {
        switch try readState(suite) {
        case .merged(let state): return state.values[key]?.narrowed(to: members)
        case .snapshot(let snapshot):
            do { return try snapshot.values.value(key, members: members) } catch { return try fromLogs(suite).values[key]?.narrowed(to: members) }
        }
    }

    /// The suite merged from its logs, in place of a snapshot that turned
    /// out damaged (a value in it that does not read), which is made again.
    private func fromLogs(_ suite: String) throws -> Merged {
        served.withLock { _ = $0.removeValue(forKey: suite) }
        let state = try merged(suite)
        if let path = snapshotPath(of: suite) { saveSnapshot(of: state, to: path) }
        return state
    }

    /// What a read is served from: the suite merged in this process, or a
    /// snapshot that matches every log as it is now.
    enum ReadState {
        case merged(Merged)
        case snapshot(SuiteSnapshot)
    }

    /// The suite as it is now: kept in this process if no log's stamp
    /// moved, else from the snapshot if every log holds exactly what it was
    /// made from, else merged from the logs (and the snapshot made again).
    func readState(_ suite: String) throws -> ReadState {
        try SuiteName.check(suite)
        let (files, stamps) = try stamped(suite)
        if let cached = cache.withLock({ $0[suite] }), cached.reader.isCurrent(stamps) { return .merged(cached) }
        if let snapshot = currentSnapshot(suite, files: files, stamps: stamps) { return .snapshot(snapshot) }
        let state = try merged(suite, files: files, stamps: stamps)
        if let snapshot = snapshotPath(of: suite) { saveSnapshot(of: state, to: snapshot) }
        return .merged(state)
    }

    /// Every log of `suite` as listed now, and each one's stamp.
    func stamped(_ suite: String) throws -> (files: [String], stamps: [String: POSIXFiles.FileStamp]) {
        let files = logFiles(of: suite)
        var stamps: [String: POSIXFiles.FileStamp] = [:]
        stamps.reserveCapacity(files.count)
        for path in files { if let stamp = try POSIXFiles.FileStamp.current(path) { stamps[path] = stamp } }
        return (files, stamps)
    }

    /// The snapshot of `suite`, if every log (`files`, stamped `stamps`)
    /// holds exactly what it was made from: the one this process was last
    /// served while no stamp moved, else the one on disk, checked.
    func currentSnapshot(_ suite: String, files: [String], stamps: [String: POSIXFiles.FileStamp]) -> SuiteSnapshot? {
        if let served = served.withLock({ $0[suite] }), served.stamps == stamps { return served.snapshot }
        guard let snapshot = snapshotPath(of: suite), let saved = SuiteSnapshot.load(snapshot) else { return nil }
        let (current, restamped, read) = saved.check(files: files, directory: directory)
        guard current else { return nil }
        // Logs read to check them that will not need it again: kept so.
        restamped?.write(to: snapshot)
        served.withLock { $0[suite] = (stamps, restamped ?? saved) }
        checkedLogs.withLock { checked in for (path, log) in read { checked[path] = log } }
        return restamped ?? saved
    }

    /// `devices/<this id>/snapshots/<suite>.json`, when this device has a
    /// folder here (a read never makes one); see `SuiteSnapshot`.
    func snapshotPath(of suite: String) -> String? {
        guard let device = try? deviceID() else { return nil }
        let folder = directory + "/" + device
        guard access(folder, F_OK) == 0 else { return nil }
        return folder + "/snapshots/" + suite + ".json"
    }

    /// Keeps `state`'s values (and, per key, what `unseen` and `lastValue`
    /// answer) for the next process, if the suite's logs are long enough
    /// that merging them costs more than writing one file.
    func saveSnapshot(of state: Merged, to path: String) {
        // A merge that left a log out is not what the folder holds.
        guard state.reader.unreadable.isEmpty else { return }
        let sources = state.reader.files.sorted { $0.key < $1.key }.map { path, progress in
            SuiteSnapshot.Source(name: String(path.dropFirst(directory.count + 1)), length: progress.consumed, hash: progress.hash,
                                 stamp: progress.settledStamp)
        }
        guard Self.worthASnapshot(bytes: sources.reduce(0, { $0 + $1.length }), files: sources.count) else { return }
        var unseen: [String: [JSONValue]] = [:], lastValues: [String: JSONValue] = [:], removedBy: [String: String] = [:]
        for key in state.reader.wholeValues.keys {
            let values = Self.unseen(in: state, key: key)
            if !values.isEmpty { unseen[key] = values }
            if let last = state.records.remains(key).fields[ChangeLine.wholeValue] { lastValues[key] = last }
            if let removal = Self.removal(in: state, key: key) { removedBy[key] = removal }
        }
        SuiteSnapshot(sources: sources, values: state.values, unseen: unseen, lastValues: lastValues, removedBy: removedBy,
                      latest: state.reader.latestRead).write(to: path)
    }

    /// The bytes of change lines above which a suite's merged values are
    /// kept in a snapshot.
    static let snapshotThreshold = 4_096
    /// The logs from which they are, however short: one file to read and
    /// a `stat` of each log cost less than opening and parsing each (six
    /// devices' settings logs, a line or two each: 80 k instructions of a
    /// `stop`, 2 %).
    static let snapshotFiles = 4

    static func worthASnapshot(bytes: Int, files: Int) -> Bool {
        bytes >= snapshotThreshold || files >= snapshotFiles
    }

    public func update<Result>(_ suite: String, durability: WriteDurability,
                               _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        try SuiteName.check(suite)
        let device = try deviceID()
        let folder = directory + "/" + device + "/changes"
        try POSIXFiles.ensureDirectory(directory + "/" + device)
        try POSIXFiles.ensureDirectory(folder)
        let path = folder + "/" + suite + ".jsonl"
        // A lock file of its own, opened read-only: closing a log opened for
        // writing is an inotify write event even when nothing was written,
        // and the daemon, which watches the logs, would wake itself.
        let lock = try FileLock(path: folder + "/" + suite + ".lock", timeout: lockTimeout)
        // Looked at inside the lock: this device's earlier writes, by any of
        // its processes, are all in.
        let (files, stamps) = try stamped(suite)
        if let base = snapshotBase(suite, files: files, stamps: stamps),
           case .done(let result) = try writeFromSnapshot(base, suite: suite, path: path, device: device, durability: durability, body) {
            _ = consume lock
            return result
        }
        let state = try merged(suite, files: files, stamps: stamps)
        var after = state.values
        let result = try body(&after)
        guard after != state.values else { return result }
        let instant = now()
        // Another device's stamp far ahead of this clock is not taken for it.
        var clock = HybridClock(device: device, latest: state.reader.latest(notAfter: HybridClock.horizonLimit(now: instant)))
        var records = state.records
        let written = try changeLines(suite, keys: Self.changedKeys(from: state.values, to: after), from: state.values, to: after,
                                      records: &records, clock: &clock, instant: instant, merged: state)
        try ChangeLogAppender.append(written.bytes, path: path, folder: folder, durability: durability)
        let due = noteCompaction(suite, linesBefore: state.reader.files[path]?.lines ?? 0, written: written)
        // This process's next look at the suite (the slot's second write
        // in a `stop`, the snapshot at its teardown, the compaction) starts
        // from here instead of parsing back what it wrote.
        keepWritten(written.decoded, bytes: written.bytes, to: path, after: state, suite: suite)
        // An economy only: the write above stands whatever becomes of it.
        if due { _ = try? compact(suite, at: path, device: device) }
        // The next read reads on from what this process holds now, taking
        // in whatever other devices added meanwhile.
        _ = consume lock
        wroteSuites.withLock { _ = $0.insert(suite) }
        // Large enough for a snapshot: made when this process is done.
        if Self.worthASnapshot(bytes: state.reader.files.values.reduce(written.bytes.count, { $0 + $1.consumed }),
                               files: state.reader.files.count + (state.reader.files[path] == nil ? 1 : 0)) {
            changedSuites.withLock { _ = $0.insert(suite) }
        }
        notify(suite)
        return result
    }

    /// Keeps `state` with the lines `bytes` (`written`) just appended to
    /// `path` taken in, when the file is exactly what `state` read of it
    /// plus those lines (`ChangeLogReader.takeWritten`); runs under the
    /// suite's lock, so no process of this device can have written since.
    private func keepWritten(_ written: [ChangeLine.Decoded], bytes: [UInt8], to path: String, after state: Merged, suite: String) {
        let stampedAt = FolderListings.wallNanoseconds()
        guard let stamp = try? POSIXFiles.FileStamp.current(path) else { return }
        var reader = state.reader
        guard reader.takeWritten(written, bytes: bytes, to: path, now: stamp, stampedAt: stampedAt) else { return }
        let kept = merging(reader, suite: suite)
        cache.withLock { $0[suite] = kept }
    }

    /// The suite merged from every device's log, reading on only from
    /// where each file was last read.
    func merged(_ suite: String) throws -> Merged {
        try SuiteName.check(suite)
        let (files, stamps) = try stamped(suite)
        return try merged(suite, files: files, stamps: stamps)
    }

    /// The same, for `files` as just listed and stamped.
    func merged(_ suite: String, files: [String], stamps: [String: POSIXFiles.FileStamp]) throws -> Merged {
        let cached = cache.withLock { $0[suite] }
        if let cached, cached.reader.isCurrent(stamps) { return cached }
        var reader = cached.map(\.reader).flatMap { $0.canContinue(with: stamps) ? $0 : nil } ?? newReader(suite)
        do {
            try reader.readOn(files, stamps: stamps)
        } catch is ChangeLogReader.Replaced {
            reader = newReader(suite)
            try reader.readOn(files, stamps: stamps)
        }
        let state = merging(reader, suite: suite)
        cache.withLock { $0[suite] = state }
        return state
    }

    /// Every file holding changes to `suite`: each device's log and the
    /// conflict copies a sync tool made of it; never a sync tool's
    /// temporary file.
    func logFiles(of suite: String) -> [String] {
        let devices = listings.names(in: devicesFolder)
        // The device folders' paths, made again only when `devices/` was listed again.
        let folders = suiteFiles.withLock { kept in
            if let made = kept.folders, made.devices == devices { return made.paths }
            let paths = devices.sorted().filter(HybridTimestamp.isDeviceID).map { FolderListings.Folder(directory + "/" + $0 + "/changes") }
            kept.folders = (devices, paths)
            return paths
        }
        let listed = folders.map { listings.names(in: $0) }
        // The same listings as last time (arrays compare by identity first): the same files.
        if let made = suiteFiles.withLock({ $0.files[suite] }), made.devices == devices, made.listed == listed { return made.files }
        var files: [String] = []
        let log = suite + ".jsonl", conflict = suite + SyncToolFiles.conflictMarker
        for (folder, names) in zip(folders, listed) {
            for name in names.sorted() where Self.holds(log: log, conflict: conflict, name) { files.append(folder.path + "/" + name) }
        }
        suiteFiles.withLock { $0.files[suite] = (devices, listed, files) }
        return files
    }

    /// `<suite>.jsonl`, or a conflict copy of it (`<suite>.sync-conflict-….jsonl`).
    /// (`log` and `conflict` are the suite's names, made once per listing,
    /// not for each name of each folder.)
    static func holds(log: String, conflict: String, _ name: String) -> Bool {
        name == log || (name.hasPrefix(conflict) && name.hasSuffix(".jsonl") && !name.hasPrefix("."))
    }

    /// A fingerprint of every file of `suite`: it moves with any device's
    /// change, so the daemon learns of one without merging.
    public func stamp(of suite: String) -> Int {
        var hasher = Hasher()
        for path in logFiles(of: suite) {
            hasher.combine(path)
            hasher.combine(try? POSIXFiles.FileStamp.current(path))
        }
        return hasher.finalize()
    }

    public func register(defaults: [String: JSONValue], in suite: String) {
        side.register(defaults: defaults, in: suite)
    }

    public func defaults(of suite: String) -> [String: JSONValue] {
        side.defaults(of: suite)
    }

    public func changes() -> AsyncStream<String> {
        side.changes()
    }

    func notify(_ suite: String) {
        side.notify(suite)
    }
}
