import Domain
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The UserDefaults-like store on disk: one JSON file per suite in one
/// directory, shared safely by every retime process (docs/storage.md).
///
/// - Reads take no lock: files are only ever replaced by `rename`, so a
///   reader sees the old or the new content, never a mixture.
/// - `update` takes an exclusive `flock` on `<suite>.lock`, re-reads the
///   file inside it, and writes durably (temp file, fsync, rename, fsync of
///   the directory). The replaced file is kept as the newest of `backupCount`
///   backup generations in `backups/`.
/// - A file that cannot be understood is a `StoreError` naming it, and is
///   never overwritten.
public final class JSONFileStore: KeyValueStore {
    public let directory: String
    public let lockTimeout: Double
    public let backupCount: Int
    private let registeredDefaults = Mutex<[String: [String: JSONValue]]>([:])
    private let observers = Mutex<[UUID: AsyncStream<String>.Continuation]>([:])

    /// A store over `directory` (created 0700 on first write).
    public init(directory: String, lockTimeout: Double = 5, backupCount: Int = 3) {
        self.directory = directory
        self.lockTimeout = lockTimeout
        self.backupCount = backupCount
    }

    public func values(of suite: String) throws -> [String: JSONValue] {
        let path = try path(of: suite)
        guard let bytes = try POSIXFiles.read(path) else { return [:] }
        return try SuiteFile.decode(bytes, path: path).values
    }

    public func update<Result>(_ suite: String, _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        let path = try path(of: suite)
        try POSIXFiles.ensureDirectory(directory)
        let lock = try FileLock(path: lockPath(of: suite), timeout: lockTimeout)
        let before = try values(of: suite)
        var after = before
        let result = try body(&after)
        if after != before {
            try rotateBackups(of: suite, path: path)
            try POSIXFiles.writeAtomically(try SuiteFile(values: after).encoded(), to: path)
            notify(suite)
        }
        _ = consume lock
        return result
    }

    public func register(defaults: [String: JSONValue], in suite: String) {
        registeredDefaults.withLock { $0[suite, default: [:]].merge(defaults) { _, new in new } }
    }

    public func defaults(of suite: String) -> [String: JSONValue] {
        registeredDefaults.withLock { $0[suite] ?? [:] }
    }

    public func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
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
        for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(suite) }
    }
}

/// Identifies one version of a suite's file on disk.
public struct SuiteStamp: Hashable, Sendable {
    public var inode: UInt64
    public var size: Int64
    public var modifiedNanoseconds: Int64
}
