import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The history's bulk paths: imports append many sessions at once, reports
/// read spans of all of them.
extension JSONLinesSessionHistory {
    /// One locked write and one `fsync` per month segment, however many
    /// sessions: an import of 100,000 sessions touches each segment once.
    /// Ids already in the segment (the whole file, not only its tail) are skipped.
    @discardableResult
    public func append(contentsOf sessions: [Session]) async throws -> Int {
        var recordedNow = 0
        let folder = directory + "/" + (try deviceID())
        try POSIXFiles.ensureDirectory(folder)
        var byMonth: [String: [Session]] = [:]
        for session in sessions { byMonth[SegmentName.month(of: session.startedAt), default: []].append(session) }
        for (month, batch) in byMonth.sorted(by: { $0.key < $1.key }) {
            let path = folder + "/" + month + ".jsonl"
            let lock = try FileLock(path: path, timeout: lockTimeout, flags: O_RDWR | O_CREAT | O_APPEND)
            let fd = lock.descriptor
            let existing = try POSIXFiles.readAll(fd, path: path, limit: JSONLinesSessionHistory.segmentReadLimit)
            var recorded = Self.ids(in: existing)
            var bytes: [UInt8] = []
            if let last = existing.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            let start = bytes.count
            for session in batch where recorded.insert(session.id.description).inserted {
                bytes += try SessionLineCodec.encode(session)
                recordedNow += 1
            }
            if bytes.count > start {
                try POSIXFiles.writeAll(fd, bytes, path: path)
                guard fsync(fd) == 0 else { throw StoreError.notWritable(path: path, reason: "fsync: \(POSIXFiles.reason())") }
                if existing.isEmpty { POSIXFiles.syncDirectory(folder) }
            }
            _ = consume lock
        }
        return recordedNow
    }

    /// The session ids recorded in a segment's bytes (the text after each `"id":"`).
    private static func ids(in bytes: [UInt8]) -> Set<String> {
        var ids = Set<String>()
        bytes.withUnsafeBufferPointer { all in
            occurrences(of: Array("\"id\":\"".utf8), in: all) { end in
                guard end + 36 <= all.count else { return false }
                ids.insert(String(decoding: UnsafeBufferPointer(rebasing: all[end..<end + 36]), as: UTF8.self).lowercased())
                return true
            }
        }
        return ids
    }
}
