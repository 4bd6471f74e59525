import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The audit trail as a JSON-lines file (`DATA_DIR/audit.jsonl`, mode 0600):
/// each entry one line, written with `O_APPEND` and `fsync`ed before the
/// attempt's answer is given. Never rotated or rewritten by retime. A line
/// torn by a crash is skipped when reading; the next append starts a new line.
public struct JSONLinesAuditTrail: AuditTrail {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func append(_ entry: AuditEntry) async throws {
        var line = try JSONText.line(entry)
        let directory = POSIXFiles.parentDirectory(of: path)
        if !directory.isEmpty { try POSIXFiles.ensureDirectory(directory) }
        let lock = try FileLock(path: path, timeout: 5, flags: O_RDWR | O_CREAT | O_APPEND)
        let fd = lock.descriptor
        // A torn last line (a crash mid-write) must not swallow this entry.
        let size = lseek(fd, 0, SEEK_END)
        if size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") { line.insert(UInt8(ascii: "\n"), at: 0) }
        }
        try POSIXFiles.writeAll(fd, line, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        _ = consume lock
    }

    public func entries() async throws -> [AuditEntry] {
        try await health().entries
    }

    /// The entries that decode, and how many lines the file has (`doctor`
    /// reports the difference as unreadable lines).
    public func health() async throws -> (entries: [AuditEntry], lines: Int) {
        guard let bytes = try POSIXFiles.read(path) else { return ([], 0) }
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        return (lines.compactMap { try? JSONText.decode(AuditEntry.self, from: Array($0)) }, lines.count)
    }
}
