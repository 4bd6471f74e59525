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
/// `{"deleted":true,"id":...,"revisedAt":...}`; several made as one (an
/// undo) are one line, `{"amendments":[...]}`. See docs/storage.md.
extension JSONLinesSessionHistory {
    static let amendmentsFile = "amendments.jsonl"
    private static let revisedAtMarker = Array(#""revisedAt":""#.utf8)
    private static let tombstonePrefix = Array(#"{"deleted":true,"#.utf8)
    private static let idMarker = Array(#""id":""#.utf8)
    private static let batchPrefix = Array(#"{"amendments":["#.utf8)

    public func amend(_ amendment: HistoryAmendment) async throws {
        try appendAmendmentLine(try Self.line(amendment) + [0x0A])
    }

    /// Several amendments as one line, `{"amendments":[...]}`: a crash
    /// mid-write leaves it torn, and a torn line is skipped whole, so a
    /// reader sees all of them or none.
    public func amend(contentsOf amendments: [HistoryAmendment]) async throws {
        guard amendments.count > 1 else {
            if let only = amendments.first { try await amend(only) }
            return
        }
        var line = Self.batchPrefix
        for (index, amendment) in amendments.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line += try Self.line(amendment)
        }
        try appendAmendmentLine(line + Array("]}\n".utf8))
    }

    /// One amendment's line, without its newline.
    private static func line(_ amendment: HistoryAmendment) throws -> [UInt8] {
        let stamp = Timestamp.format(amendment.revisedAt)
        switch amendment {
        case .revise(let session, _):
            return Array(#"{"revisedAt":"\#(stamp)","#.utf8) + (try SessionLineCodec.encode(session)).dropFirst().dropLast()
        case .delete(let id, _):
            return Array(#"{"deleted":true,"id":"\#(id)","revisedAt":"\#(stamp)"}"#.utf8)
        }
    }

    /// Appends `line` to this device's amendments (`DeviceLineFile`).
    private func appendAmendmentLine(_ bytes: [UInt8]) throws {
        try DeviceLineFile.append(bytes, to: Self.amendmentsFile, in: directory + "/" + (try deviceID()), lockTimeout: lockTimeout)
    }

    /// Every device's amendments, resolved: per id, the one that wins.
    func amendmentWinners() throws -> [SessionID: HistoryAmendment] {
        var all: [(amendment: HistoryAmendment, device: String)] = []
        for device in POSIXFiles.names(in: directory) where !device.hasPrefix(".") {
            for path in amendmentFiles(of: device) {
                for batch in try readLines(path, { line in try Self.amendments(line) }) {
                    all += batch.map { (amendment: $0, device: device) }
                }
            }
        }
        return HistoryAmendment.winners(all)
    }

    /// A device's amendments file and the conflict copies a sync tool made
    /// of it (`amendments.sync-conflict-….jsonl`): more lines of the same
    /// device, merged by union (the winner per id is the same whichever
    /// file holds a line).
    func amendmentFiles(of device: String) -> [String] {
        let folder = directory + "/" + device
        var files = [folder + "/" + Self.amendmentsFile]
        for name in POSIXFiles.names(in: folder).sorted()
        where SyncToolFiles.isConflictCopy(name) && SyncToolFiles.original(of: name) == Self.amendmentsFile {
            files.append(folder + "/" + name)
        }
        return files
    }

    /// The amendments of one line: one, or a batch's.
    static func amendments(_ line: UnsafeBufferPointer<UInt8>) throws -> [HistoryAmendment] {
        guard line.starts(with: batchPrefix) else { return try amendment(line).map { [$0] } ?? [] }
        return try batchElements(line).compactMap { try amendment(UnsafeBufferPointer(rebasing: line[$0])) }
    }

    /// Where each amendment of a batch line is, once the line is known to
    /// be whole (`{"amendments":[{...},{...}]}`): a line torn after one of
    /// its amendments is malformed, never a shorter batch. Found by
    /// scanning for the objects' ends, not by building a tree: every read
    /// of history reads every batch, and one undo of an import holds
    /// 100,000 amendments.
    static func batchElements(_ line: UnsafeBufferPointer<UInt8>) throws -> [Range<Int>] {
        let malformed = JSONByteReader.Malformed(description: "a torn or malformed batch of amendments")
        var index = batchPrefix.count, ranges: [Range<Int>] = []
        while index < line.count, line[index] != UInt8(ascii: "]") {
            guard line[index] == UInt8(ascii: "{") else { throw malformed }
            let start = index
            var depth = 0, inString = false, escaped = false
            scan: while index < line.count {
                let byte = line[index]
                index += 1
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { break scan }
                default: break
                }
            }
            guard depth == 0, !inString else { throw malformed }
            ranges.append(start..<index)
            guard index < line.count else { throw malformed }
            if line[index] == UInt8(ascii: ",") {
                index += 1
                guard index < line.count, line[index] == UInt8(ascii: "{") else { throw malformed }
            } else if line[index] != UInt8(ascii: "]") {
                throw malformed
            }
        }
        guard line.count - index >= 2, line[index] == UInt8(ascii: "]"), line[index + 1] == UInt8(ascii: "}"),
              line[(index + 2)...].allSatisfy({ $0 == 0x20 || $0 == 0x0D }) else { throw malformed }
        return ranges
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
