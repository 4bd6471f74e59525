import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The undo journal as one more append-only file in the device's history
/// folder, `history/<device-id>/changes.journal` (not `.jsonl`: readers of
/// the month segments pass it by). A change is one line
/// `{"change":{...}}`, undoing it one line `{"at":...,"undone":ID}`; each
/// is written with `O_APPEND` under the file's lock and `fsync`ed. A torn
/// last line (a crash mid-write) is skipped, and the next append starts a
/// fresh line. See docs/history.md, "Undo".
public struct JSONLinesHistoryJournal: HistoryJournal {
    static let fileName = "changes.journal"
    /// The most the journal may hold before reading it is refused: an import
    /// journals every session it touched, twice over for updates.
    static let readLimit = 512 << 20
    public let directory: String
    let deviceID: @Sendable () throws -> String
    let lockTimeout: Double

    /// `directory`: the history folder (`DATA_DIR/history`).
    public init(directory: String, deviceID: @escaping @Sendable () throws -> String, lockTimeout: Double = 5) {
        self.directory = directory
        self.deviceID = deviceID
        self.lockTimeout = lockTimeout
    }

    /// One line of the journal.
    struct Line: Codable {
        var change: HistoryChange?
        var undone: UUID?
        var at: Date?
    }

    public func record(_ change: HistoryChange) async throws {
        try append(Line(change: change))
    }

    public func markUndone(_ change: UUID, at: Date) async throws {
        try append(Line(undone: change, at: at))
    }

    public func pending() async throws -> [HistoryChange] {
        try read().pending
    }

    public func latest() async throws -> Date? {
        try read().latest
    }

    /// The changes not undone, and the latest instant of any line.
    private func read() throws -> (pending: [HistoryChange], latest: Date?) {
        let path = directory + "/" + (try deviceID()) + "/" + Self.fileName
        guard let bytes = try POSIXFiles.read(path, limit: Self.readLimit) else { return ([], nil) }
        var changes: [HistoryChange] = [], undone = Set<UUID>(), latest: Date?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            // A torn or hand-damaged line is no change: skipped.
            guard let entry = try? JSONText.decode(Line.self, from: Array(line)) else { continue }
            if let change = entry.change {
                changes.append(change)
                latest = max(latest ?? change.at, change.at)
            }
            if let id = entry.undone { undone.insert(id) }
            if let at = entry.at { latest = max(latest ?? at, at) }
        }
        return (changes.filter { !undone.contains($0.id) }, latest)
    }

    private func append(_ entry: Line) throws {
        var line = try JSONText.line(entry)
        let folder = directory + "/" + (try deviceID())
        try POSIXFiles.ensureDirectory(folder)
        let path = folder + "/" + Self.fileName
        let lock = try FileLock(path: path, timeout: lockTimeout, flags: O_RDWR | O_CREAT | O_APPEND)
        let fd = lock.descriptor
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        if info.st_size > 0 {
            // A torn last line must not swallow this one.
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { line.insert(0x0A, at: 0) }
        }
        try POSIXFiles.writeAll(fd, line, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        if info.st_size == 0 { POSIXFiles.syncDirectory(folder) }
        _ = consume lock
    }
}
