import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Amendments (edits and deletions) live in one more append-only file per
/// device, `history/<device-id>/amendments.jsonl`, read whole by every
/// query: few, and a revision may move a session to another month, where a
/// query of the old month must not find the old line. An edit is the
/// session's line with `"revisedAt"` first; a deletion is
/// `{"deleted":true,"id":...,"revisedAt":...}`. See docs/storage.md.
extension JSONLinesSessionHistory {
    static let amendmentsFile = "amendments.jsonl"
    private static let revisedAtMarker = Array(#""revisedAt":""#.utf8)
    private static let tombstonePrefix = Array(#"{"deleted":true,"#.utf8)
    private static let idMarker = Array(#""id":""#.utf8)

    public func amend(_ amendment: HistoryAmendment) async throws {
        let stamp = Timestamp.format(amendment.revisedAt)
        var line: [UInt8]
        switch amendment {
        case .revise(let session, _):
            line = Array(#"{"revisedAt":"\#(stamp)","#.utf8) + (try SessionLineCodec.encode(session)).dropFirst()
        case .delete(let id, _):
            line = Array(#"{"deleted":true,"id":"\#(id)","revisedAt":"\#(stamp)"}"#.utf8) + [0x0A]
        }
        let folder = directory + "/" + (try deviceID())
        try POSIXFiles.ensureDirectory(folder)
        let path = folder + "/" + Self.amendmentsFile
        let lock = try FileLock(path: path, timeout: lockTimeout, flags: O_RDWR | O_CREAT | O_APPEND)
        let fd = lock.descriptor
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: POSIXFiles.reason()) }
        if info.st_size > 0 {
            // A torn last line (a crash mid-write) must not swallow this one.
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { line.insert(0x0A, at: 0) }
        }
        try POSIXFiles.writeAll(fd, line, path: path)
        guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
        if info.st_size == 0 { POSIXFiles.syncDirectory(folder) }
        _ = consume lock
    }

    /// Every device's amendments, resolved: per id, the one that wins.
    func amendmentWinners() throws -> [SessionID: HistoryAmendment] {
        var all: [(amendment: HistoryAmendment, device: String)] = []
        for device in POSIXFiles.names(in: directory) where !device.hasPrefix(".") {
            let path = directory + "/" + device + "/" + Self.amendmentsFile
            all += try readLines(path) { line in try Self.amendment(line).map { ($0, device) } }
        }
        return HistoryAmendment.winners(all)
    }

    /// One amendment line; a line with no `revisedAt` is malformed.
    static func amendment(_ line: UnsafeBufferPointer<UInt8>) throws -> HistoryAmendment? {
        guard let at = value(after: revisedAtMarker, in: line).flatMap(Timestamp.parse) else {
            throw JSONByteReader.Malformed(description: "an amendment without its revisedAt")
        }
        if line.starts(with: tombstonePrefix) {
            guard let id = value(after: idMarker, in: line).flatMap(UUID.init(uuidString:)) else {
                throw JSONByteReader.Malformed(description: "a deletion without its id")
            }
            return .delete(SessionID(id), at: at)
        }
        return .revise(try SessionLineCodec.decode(line), at: at)
    }

    /// The string value that follows the first `marker` (`"key":"`).
    private static func value(after marker: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> String? {
        var found: String?
        occurrences(of: marker, in: line) { end in
            if let close = line[end...].firstIndex(of: UInt8(ascii: "\"")) {
                found = String(decoding: UnsafeBufferPointer(rebasing: line[end..<close]), as: UTF8.self)
            }
            return false
        }
        return found
    }
}
