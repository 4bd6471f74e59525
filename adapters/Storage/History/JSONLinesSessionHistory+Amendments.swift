import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Amendments (edits and deletions) live in one more append-only file per
/// device, `history/<device-id>/amendments.jsonl`, read whole by every
/// query: few, and a revision may move a session to another month, where a
/// query of the old month must not find the old line. Each carries its
/// hybrid clock reading, `"at"`, from a clock that has observed every
/// amendment line of every device: an edit made after another device's
/// was seen orders after it, whatever the wall clocks say. An edit is the
/// session as it now reads with `"changed"` (the fields it set),
/// `"tagsAdded"` and `"tagsRemoved"` first, and only those count in the
/// merge (`AmendedSessions`); a whole revision has no `"changed"`; a
/// deletion is `{"deleted":true,"id":...,"at":...,"revisedAt":...}`;
/// several made as one (an undo) are one line, `{"amendments":[...]}`.
/// Lines an older retime wrote (no `"at"`) set the whole session at a
/// reading made from their `revisedAt` and their device. See
/// docs/storage.md.
extension JSONLinesSessionHistory {
    static let amendmentsFile = "amendments.jsonl"
    private static let revisedAtMarker = Array(#""revisedAt":""#.utf8)
    private static let atMarker = Array(#""at":""#.utf8)
    private static let tombstonePrefix = Array(#"{"deleted":true,"#.utf8)
    private static let idMarker = Array(#""id":""#.utf8)
    private static let batchPrefix = Array(#"{"amendments":["#.utf8)

    public func amend(_ amendment: HistoryAmendment) async throws {
        try appendStamped([amendment])
    }

    /// Several amendments as one line, `{"amendments":[...]}`: a crash
    /// mid-write leaves it torn, and a torn line is skipped whole, so a
    /// reader sees all of them or none.
    public func amend(contentsOf amendments: [HistoryAmendment]) async throws {
        guard !amendments.isEmpty else { return }
        try appendStamped(amendments)
    }

    /// Stamps `amendments` with one reading of this device's hybrid clock,
    /// after it has observed every amendment recorded so far, and appends
    /// them as one line.
    private func appendStamped(_ amendments: [HistoryAmendment]) throws {
        let device = try deviceID()
        var clock = HybridClock(device: device.lowercased())
        let amended = try amendedSessions(), now = amendments[0].revisedAt
        // Another device's reading far ahead is not taken for this clock;
        // an amendment of a session that has one orders after it all the same.
        if let latest = amended.latest(notAfter: HybridClock.horizonLimit(now: now)) { clock.observe(latest) }
        let at = clock.tick(now: now, count: 1, after: amendments.compactMap { amended.latest(of: $0.id) }.max())
        var line: [UInt8]
        if amendments.count == 1 {
            line = try Self.line(amendments[0], at: at)
        } else {
            line = Self.batchPrefix
            for (index, amendment) in amendments.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                line += try Self.line(amendment, at: at)
            }
            line += Array("]}".utf8)
        }
        try DeviceLineFile.append(line + [0x0A], to: Self.amendmentsFile, in: directory + "/" + device, lockTimeout: lockTimeout)
    }

    /// One amendment's line, without its newline.
    private static func line(_ amendment: HistoryAmendment, at: HybridTimestamp) throws -> [UInt8] {
        let stamp = Timestamp.format(amendment.revisedAt)
        switch amendment {
        case .revise(let session, _):
            return Array(#"{"at":"\#(at)","revisedAt":"\#(stamp)","#.utf8) + (try SessionLineCodec.encode(session)).dropFirst().dropLast()
        case .edit(let session, let changes, _):
            let fields = SessionChanges.Field.allCases.filter(changes.fields.contains).map(\.rawValue)
            return Array(#"{"at":"\#(at)","#.utf8) + SessionLineEncoder.list("changed", fields)
                + Array(#""revisedAt":"\#(stamp)","#.utf8) + SessionLineEncoder.list("tagsAdded", changes.tagsAdded)
                + SessionLineEncoder.list("tagsRemoved", changes.tagsRemoved)
                + (try SessionLineCodec.encode(session)).dropFirst().dropLast()
        case .delete(let id, _):
            return Array(#"{"deleted":true,"id":"\#(id)","at":"\#(at)","revisedAt":"\#(stamp)"}"#.utf8)
        }
    }

    /// Every device's amendments, merged per field.
    func amendedSessions() throws -> AmendedSessions {
        var merged = AmendedSessions()
        for device in POSIXFiles.names(in: directory) where !device.hasPrefix(".") {
            let folder = device.lowercased()
            for path in amendmentFiles(of: device) {
                for batch in try readLines(path, { line in try Self.amendments(line, device: folder) }) {
                    for entry in batch { merged.add(entry.amendment, at: entry.at) }
                }
            }
        }
        return merged
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
    static func amendments(_ line: UnsafeBufferPointer<UInt8>, device: String) throws -> [(amendment: HistoryAmendment, at: HybridTimestamp)] {
        guard line.starts(with: batchPrefix) else { return try amendment(line, device: device).map { [$0] } ?? [] }
        return try batchElements(line).compactMap { try amendment(UnsafeBufferPointer(rebasing: line[$0]), device: device) }
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

    /// One amendment line with its hybrid clock reading; a line with no
    /// `revisedAt`, or an `at` that is not a reading, is malformed.
    static func amendment(_ line: UnsafeBufferPointer<UInt8>, device: String) throws -> (amendment: HistoryAmendment, at: HybridTimestamp)? {
        guard let revisedAt = value(after: revisedAtMarker, in: line).flatMap(Timestamp.parse) else {
            throw JSONByteReader.Malformed(description: "an amendment without its revisedAt")
        }
        let at: HybridTimestamp
        if let text = value(after: atMarker, in: line) {
            guard let reading = HybridTimestamp(text: text) else {
                throw JSONByteReader.Malformed(description: "an amendment whose at is not a hybrid clock reading")
            }
            at = reading
        } else {
            at = Self.reading(revisedAt, device: device)
        }
        if line.starts(with: tombstonePrefix) {
            guard let id = value(after: idMarker, in: line).flatMap(UUID.init(uuidString:)) else {
                throw JSONByteReader.Malformed(description: "a deletion without its id")
            }
            return (.delete(SessionID(id), at: revisedAt), at)
        }
        let session = try SessionLineCodec.decode(line)
        guard let changes = try SessionLineCodec.decodeChanges(line) else { return (.revise(session, at: revisedAt), at) }
        return (.edit(session, changes, at: revisedAt), at)
    }

    /// The reading of a line an older retime wrote: its `revisedAt` to the
    /// millisecond, and the device whose folder holds it.
    static func reading(_ revisedAt: Date, device: String) -> HybridTimestamp {
        let milliseconds = (revisedAt.timeIntervalSince1970 * 1_000).rounded(.down)
        let clamped = milliseconds.isFinite ? Int64(min(max(milliseconds, 0), Double(HybridTimestamp.latestMilliseconds))) : 0
        return HybridTimestamp(milliseconds: clamped, device: device)
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
