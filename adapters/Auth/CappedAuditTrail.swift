import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The audit trail the system service keeps for each user
/// (`STATE/users/UID/audit.jsonl`), whose size that user must not decide:
/// refusals in a row of the same action for the same reason are one line
/// (`count` of them, from `at` to `until`), rewritten in place as each
/// comes, and a file past `limit` bytes is moved to `PATH.1` (replacing the
/// one before) and started anew. So a user's trail is at most about twice
/// `limit` however many requests it makes. Lines are JSON as
/// `JSONLinesAuditTrail` writes them, `fsync`ed before the answer; a line
/// torn by a crash mid-rewrite is skipped when reading.
public struct CappedAuditTrail: AuditTrail {
    public let path: String
    public let limit: Int
    /// The longest line read back to be summarised; any entry is far shorter.
    static let tail = 4_096

    public init(path: String, limit: Int = 256 * 1_024) {
        self.path = path
        self.limit = limit
    }

    public func append(_ entry: AuditEntry) async throws {
        let directory = POSIXFiles.parentDirectory(of: path)
        if !directory.isEmpty { try POSIXFiles.ensureDirectory(directory) }
        let lock = try FileLock(path: path, timeout: 5, flags: O_RDWR | O_CREAT)
        let fd = lock.descriptor
        let size = lseek(fd, 0, SEEK_END)
        var (offset, line) = (size, try JSONText.line(entry))
        if let (start, last) = lastEntry(fd, size: size), last.repeats(as: entry) {
            var summary = last
            summary.count = (last.count ?? 1) + 1
            summary.until = entry.at
            (offset, line) = (start, try JSONText.line(summary))
        } else if size > 0 {
            // A torn last line (a crash mid-write) must not swallow this entry.
            var byte: UInt8 = 0
            if pread(fd, &byte, 1, size - 1) == 1, byte != UInt8(ascii: "\n") { line.insert(UInt8(ascii: "\n"), at: 0) }
        }
        try write(line, at: offset, to: fd)
        guard ftruncate(fd, offset + off_t(line.count)) == 0, fsync(fd) == 0 else {
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
        }
        if Int(offset) + line.count > limit {
            // Renamed under the lock: the next writer opens a new file.
            guard rename(path, path + ".1") == 0 else { throw StoreError.notWritable(path: path, reason: POSIXFiles.reason()) }
            POSIXFiles.syncDirectory(directory.isEmpty ? "." : directory)
        }
        _ = consume lock
    }

    public func entries() async throws -> [AuditEntry] {
        var entries: [AuditEntry] = []
        for file in [path + ".1", path] {
            guard let bytes = try POSIXFiles.read(file) else { continue }
            entries += bytes.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONText.decode(AuditEntry.self, from: Array($0)) }
        }
        return entries
    }

    /// The file's last whole line, where it starts, and its entry.
    private func lastEntry(_ fd: Int32, size: off_t) -> (off_t, AuditEntry)? {
        guard size > 0 else { return nil }
        let length = Int(min(off_t(Self.tail), size))
        var bytes = [UInt8](repeating: 0, count: length)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, size - off_t(length)) }
        guard count == length, bytes.last == UInt8(ascii: "\n") else { return nil }
        let body = bytes.dropLast()
        let start = body.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        guard start > 0 || off_t(length) == size,
              let entry = try? JSONText.decode(AuditEntry.self, from: Array(body[start...])) else { return nil }
        return (size - off_t(length) + off_t(start), entry)
    }

    private func write(_ bytes: [UInt8], at offset: off_t, to fd: Int32) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, offset + off_t(written)) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
            }
            written += count
        }
    }
}
