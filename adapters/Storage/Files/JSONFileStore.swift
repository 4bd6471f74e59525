#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
import Synchronization
#endif

/// The UserDefaults-like store on disk: one JSON file per suite in one
/// directory, shared safely by every retime process (docs/storage.md).
///
/// - Reads take no lock: files are only ever replaced by `rename`, so a
///   reader sees the old or the new content, never a mixture. A file is
///   parsed once per version: a read whose file still has the stamp of the
///   last one read or written here returns what that one held.
/// - `update` takes an exclusive `flock` on `<suite>.lock`, looks at the
///   file inside it (reading it again unless its stamp shows the version
///   already parsed), and writes durably (temp file, fsync, rename, fsync of
///   the directory). The replaced file is kept as the newest of `backupCount`
///   backup generations in `backups/`.
/// - A file that cannot be understood is a `StoreError` naming it, and is
///   never overwritten.
public final class JSONFileStore: KeyValueStore {
    public let directory: String
    public let lockTimeout: Double
    public let backupCount: Int
    /// Registered defaults and change observers (this process only).
    private let side = StoreSideTables()
    /// The values last read or written per suite, by the stamp of their
    /// file: a command reads each file once however many repositories ask,
    /// and the daemon re-reads a suite only when its file changed.
    private let cache = Mutex<[String: (stamp: POSIXFiles.FileStamp, values: [String: JSONValue])]>([:])

    /// A store over `directory` (created 0700 on first write).
    public init(directory: String, lockTimeout: Double = 5, backupCount: Int = 3) {
        self.directory = directory
        self.lockTimeout = lockTimeout
        self.backupCount = backupCount
    }

    public func values(of suite: String) throws -> [String: JSONValue] {
        let path = try path(of: suite)
        guard let stamp = try POSIXFiles.FileStamp.current(path) else {
            cache.withLock { _ = $0.removeValue(forKey: suite) }
            return [:]
        }
        if let cached = cache.withLock({ $0[suite] }), cached.stamp == stamp { return cached.values }
        return try freshValues(of: suite, path: path)
    }

    /// The suite as its file holds it now, remembered for lock-free reads.
    private func freshValues(of suite: String, path: String) throws -> [String: JSONValue] {
        guard let (bytes, stamp) = try POSIXFiles.readStamped(path) else {
            cache.withLock { _ = $0.removeValue(forKey: suite) }
            return [:]
        }
        let values = try SuiteFile.decode(bytes, path: path).values
        remember(values, of: suite, stamp: stamp)
        return values
    }

    public func update<Result>(_ suite: String, durability: WriteDurability,
                               _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        let path = try path(of: suite)
        try POSIXFiles.ensureDirectory(directory)
        let lock = try FileLock(path: lockPath(of: suite), timeout: lockTimeout)
        // Look at the file inside the lock (semantics.md): a read-modify-write
        // starts from the file as it is now. Its stamp, taken under the lock,
        // says whether that is the version already parsed (every writer
        // replaces the file by rename, so another writer's version has
        // another inode); only a new version is read and parsed again.
        let before = try values(of: suite)
        var after = before
        let result = try body(&after)
        if after != before {
            try rotateBackups(of: suite, path: path)
            let written = try POSIXFiles.writeAtomically(try SuiteFile(values: after).encoded(), to: path,
                                                         syncingDirectory: durability == .durable)
            // The rename moved the change time: the stamp is read again, and
            // kept only if the path still names the file just written.
            if let written, let stamp = try? POSIXFiles.FileStamp.current(path), stamp.inode == written.inode,
               stamp.device == written.device {
                remember(after, of: suite, stamp: stamp)
            }
            notify(suite)
        }
        _ = consume lock
        return result
    }

    /// Drops the parsed suites it keeps (a daemon rebuilding its services,
    /// a command ending): the next read parses the files again.
    public func forgetParsedSuites() {
        cache.withLock { $0.removeAll() }
    }

    private func remember(_ values: [String: JSONValue], of suite: String, stamp: POSIXFiles.FileStamp) {
        cache.withLock { $0[suite] = (stamp, values) }
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

    /// A cheap fingerprint of a suite's file (inode, size, modification
    /// time): every write replaces the file, so another process (the daemon)
    /// learns of a change by comparing stamps, without reading the file.
    public func stamp(of suite: String) throws -> SuiteStamp? {
        try POSIXFiles.linkStatus(try path(of: suite)).map {
            SuiteStamp(inode: $0.inode, size: $0.size, modifiedNanoseconds: $0.modifiedNanoseconds)
        }
    }

    /// The file that holds `suite`; the name must be a plain file name.
    public func path(of suite: String) throws -> String {
        try SuiteName.check(suite)
        return directory + "/" + suite + ".json"
    }

    /// Backup generations of `suite`, newest first (those that exist).
    public func backupPaths(of suite: String) throws -> [String] {
        _ = try path(of: suite)
        return (1...max(1, backupCount)).map { backupPath(of: suite, generation: $0) }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    public func discardBackups(of suite: String) throws {
        for path in try backupPaths(of: suite) where unlink(path) != 0 && errno != ENOENT {
            throw StoreError.notWritable(path: path, reason: String(cString: strerror(errno)))
        }
    }

    private func lockPath(of suite: String) -> String { directory + "/" + suite + ".lock" }

    private func backupPath(of suite: String, generation: Int) -> String {
        directory + "/backups/" + suite + ".json." + String(generation)
    }

    /// Shifts the generations and hard-links the current (valid) file in as
    /// the newest: no copy, and the old inode lives on after the rename.
    private func rotateBackups(of suite: String, path: String) throws {
        guard backupCount > 0, FileManager.default.fileExists(atPath: path) else { return }
        try POSIXFiles.ensureDirectory(directory + "/backups")
        for generation in stride(from: backupCount - 1, through: 1, by: -1) {
            rename(backupPath(of: suite, generation: generation), backupPath(of: suite, generation: generation + 1))
        }
        let newest = backupPath(of: suite, generation: 1)
        unlink(newest)
        if link(path, newest) != 0 {
            // Hard links can be refused (some synced folders); fall back to a copy.
            if let bytes = try POSIXFiles.read(path) { try POSIXFiles.writeAtomically(bytes, to: newest) }
        }
    }

    private func notify(_ suite: String) {
        side.notify(suite)
    }
}

/// Identifies one version of a suite's file on disk.
public struct SuiteStamp: Hashable, Sendable {
    public var inode: UInt64
    public var size: Int64
    public var modifiedNanoseconds: Int64
}
