import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One history line: a session as one JSON object with sorted keys, ending in
/// a newline, as the store's JSON encoder writes it. Both directions work on
/// bytes directly, because reports read and imports write hundreds of
/// thousands of lines.
enum SessionLineCodec {
    static func encode(_ session: Session) throws -> [UInt8] {
        SessionLineEncoder.encode(session)
    }

    static func decode(_ line: UnsafeBufferPointer<UInt8>) throws -> Session {
        var reader = JSONByteReader(line)
        var id: SessionID?, groupId: GroupID?, startedAt: Date?, plannedEnd: Date?, endedAt: Date?
        var outcome: SessionOutcome?, strict = false, breaks: [Break] = [], tags: [String] = [], note: String?
        var origin = SessionOrigin.manual, bootDeadline: BootTimeReading?, groupName: String?, cycle: Cycle?
        var away: [AwayStretch] = [], device: String?
        try readObject(&reader) { key, reader in
            switch key {
            case .away: away = try readAway(&reader)
            case .device: device = reader.takeNull() ? nil : try reader.readString()
            case .id: id = SessionID(try reader.withString(uuid))
            case .groupId: groupId = GroupID(try reader.withString(uuid))
            case .groupName: groupName = reader.takeNull() ? nil : try reader.readString()
            case .startedAt: startedAt = try date(&reader)
            case .plannedEnd: plannedEnd = try optionalDate(&reader)
            case .endedAt: endedAt = try optionalDate(&reader)
            case .outcome: outcome = try reader.withString(Self.outcome)
            case .strict: strict = try reader.readBool()
            case .breaks: breaks = try readBreaks(&reader)
            case .tags: tags = try readArray(&reader) { try $0.readString() }
            case .note: note = reader.takeNull() ? nil : try reader.readString()
            case .origin: origin = try reader.withString(Self.origin)
            case .bootDeadline: bootDeadline = reader.takeNull() ? nil : try readBootTime(&reader)
            case .cycle: cycle = reader.takeNull() ? nil : try readCycle(&reader)
            case .start, .end, .bootID, .seconds, .reason, .kept, .threshold, .changed, .tagsAdded, .tagsRemoved, .work, .breakLength, .breakRatio, .longBreak, .rounds, nil:
                try reader.skipValue()
            }
        }
        guard reader.atEnd else { throw JSONByteReader.Malformed(description: "bytes after the session") }
        guard let id, let groupId, let startedAt, let outcome else {
            throw JSONByteReader.Malformed(description: "id, groupId, startedAt or outcome is missing")
        }
        return Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt,
                       outcome: outcome, strict: strict, breaks: breaks, tags: tags, note: note, origin: origin,
                       bootDeadline: bootDeadline, groupName: groupName, device: device, cycle: cycle, away: away)
    }

    /// What an edit's amendment line changed (`"changed"`, `"tagsAdded"`,
    /// `"tagsRemoved"`); nil for a line without `"changed"`, which sets the
    /// whole session. An unknown field name is malformed: it was written by
    /// a newer retime, and reading it as "nothing" would lose its edit.
    static func decodeChanges(_ line: UnsafeBufferPointer<UInt8>) throws -> SessionChanges? {
        var reader = JSONByteReader(line)
        var fields: [String]?, added: [String] = [], removed: [String] = []
        try readObject(&reader) { key, reader in
            switch key {
            case .changed: fields = try readArray(&reader) { try $0.readString() }
            case .tagsAdded: added = try readArray(&reader) { try $0.readString() }
            case .tagsRemoved: removed = try readArray(&reader) { try $0.readString() }
            default: try reader.skipValue()
            }
        }
        guard let fields else { return nil }
        var changed: Set<SessionChanges.Field> = []
        for name in fields {
            guard let field = SessionChanges.Field(rawValue: name) else {
                throw JSONByteReader.Malformed(description: "an edit of an unknown field, \(name)")
            }
            changed.insert(field)
        }
        return SessionChanges(fields: changed, tagsAdded: added, tagsRemoved: removed)
    }

    /// What orders and filters a line for `log`: its id, start and group,
    /// read without decoding the rest (the group only when a filter needs it).
    struct LineKey {
        var id: SessionID
        var startedAt: Date
        var groupId: GroupID?
    }

    static func decodeKey(_ line: UnsafeBufferPointer<UInt8>, withGroup: Bool) throws -> LineKey {
        if let key = scanKey(line, withGroup: withGroup) { return key }
        var reader = JSONByteReader(line)
        var id: SessionID?, groupId: GroupID?, startedAt: Date?
        try readObject(&reader) { key, reader in
            switch key {
            case .id: id = SessionID(try reader.withString(uuid))
            case .groupId where withGroup: groupId = GroupID(try reader.withString(uuid))
            case .startedAt: startedAt = try date(&reader)
            default: try reader.skipValue()
            }
        }
        guard let id, let startedAt else { throw JSONByteReader.Malformed(description: "id or startedAt is missing") }
        return LineKey(id: id, startedAt: startedAt, groupId: groupId)
    }

    /// The key found by searching for its members' markers (`"startedAt":"`),
    /// five times cheaper than parsing the line. A marker can only stand
    /// where a key does, since every quote inside a JSON string is escaped;
    /// a marker missing, repeated or followed by an escape gives nil, and
    /// the line is parsed instead.
    private static func scanKey(_ line: UnsafeBufferPointer<UInt8>, withGroup: Bool) -> LineKey? {
        guard let started = scanString(line, after: startedAtMarker).flatMap(Timestamp.parse(utf8:)),
              let id = scanString(line, after: idMarker).flatMap(UUIDText.parse) else { return nil }
        guard withGroup else { return LineKey(id: SessionID(id), startedAt: started, groupId: nil) }
        guard let group = scanString(line, after: groupIdMarker).flatMap(UUIDText.parse) else { return nil }
        return LineKey(id: SessionID(id), startedAt: started, groupId: GroupID(group))
    }

    private static let startedAtMarker = Array(#""startedAt":""#.utf8)
    private static let idMarker = Array(#""id":""#.utf8)
    private static let groupIdMarker = Array(#""groupId":""#.utf8)

    /// The bytes of the string value after the only occurrence of `marker`.
    private static func scanString(_ line: UnsafeBufferPointer<UInt8>, after marker: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        guard let base = line.baseAddress else { return nil }
        return marker.withUnsafeBytes { needle -> UnsafeBufferPointer<UInt8>? in
            // memmem: a quote is every few bytes of a JSON line, so searching
            // quote by quote costs more than parsing.
            guard let hit = retime_memmem(base, line.count, needle.baseAddress, needle.count) else { return nil }
            let start = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + needle.count
            guard retime_memmem(base + start, line.count - start, needle.baseAddress, needle.count) == nil else { return nil }
            var end = start
            while end < line.count, line[end] != UInt8(ascii: "\""), line[end] != UInt8(ascii: "\\") { end += 1 }
            guard end < line.count, line[end] == UInt8(ascii: "\"") else { return nil }
            return UnsafeBufferPointer(rebasing: line[start..<end])
        }
    }

    /// Decodes only what a report needs, skipping tags, note, origin and the
    /// rest without making a string; nil for a session that has not ended.
    static func decodeSpan(_ line: UnsafeBufferPointer<UInt8>, withTags: Bool = false) throws -> SessionSpan? {
        var reader = JSONByteReader(line)
        var id: SessionID?, groupId: GroupID?, startedAt: Date?, endedAt: Date?, outcome: SessionOutcome?, breaks: [Break] = []
        var groupName: String?, openEnded = true, tags: [String] = [], cycle = false, away: [AwayStretch] = []
        try readObject(&reader) { key, reader in
            switch key {
            case .away: away = try readAway(&reader)
            case .id: id = SessionID(try reader.withString(uuid))
            case .groupId: groupId = GroupID(try reader.withString(uuid))
            case .groupName: groupName = reader.takeNull() ? nil : try reader.readString()
            case .plannedEnd: if !reader.takeNull() { openEnded = false; try reader.skipValue() }
            case .tags where withTags: tags = try readArray(&reader) { try $0.readString() }
            case .startedAt: startedAt = try date(&reader)
            case .endedAt: endedAt = try optionalDate(&reader)
            case .outcome: outcome = try reader.withString(Self.outcome)
            case .breaks: breaks = try readBreaks(&reader)
            case .cycle: cycle = !reader.takeNull(); if cycle { try reader.skipValue() }
            default: try reader.skipValue()
            }
        }
        guard reader.atEnd else { throw JSONByteReader.Malformed(description: "bytes after the session") }
        guard let id, let groupId, let startedAt, let outcome else {
            throw JSONByteReader.Malformed(description: "id, groupId, startedAt or outcome is missing")
        }
        guard let endedAt, outcome != .active else { return nil }
        let counted = away.compactMap { $0.counted(from: startedAt, to: endedAt) }.map { Break(start: $0.start, end: $0.end) }
        return SessionSpan(id: id, groupId: groupId, startedAt: startedAt, endedAt: endedAt, outcome: outcome, breaks: breaks,
                           groupName: groupName, openEnded: openEnded, tags: tags, cycle: cycle, away: counted)
    }

    private static func date(_ reader: inout JSONByteReader) throws -> Date {
        guard let date = try reader.withString(Timestamp.parse(utf8:)) else {
            throw JSONByteReader.Malformed(description: "bad date-time")
        }
        return date
    }

    private static func optionalDate(_ reader: inout JSONByteReader) throws -> Date? {
        reader.takeNull() ? nil : try date(&reader)
    }

    private static func readBootTime(_ reader: inout JSONByteReader) throws -> BootTimeReading {
        var bootID: String?, seconds: Double?
        try readObject(&reader) { key, reader in
            switch key {
            case .bootID: bootID = try reader.readString()
            case .seconds: seconds = try reader.readDouble()
            default: try reader.skipValue()
            }
        }
        guard let bootID, let seconds else { throw JSONByteReader.Malformed(description: "a boot deadline without its fields") }
        return BootTimeReading(bootID: bootID, seconds: seconds)
    }

    private static func readCycle(_ reader: inout JSONByteReader) throws -> Cycle {
        var work: Double?, breakLength: Double?, breakRatio: Double?, longBreak: Double?, rounds: Double?
        try readObject(&reader) { key, reader in
            switch key {
            case .work: work = try reader.readDouble()
            case .breakLength: breakLength = try reader.readDouble()
            case .breakRatio: breakRatio = try reader.readDouble()
            case .longBreak: longBreak = try reader.readDouble()
            case .rounds: rounds = try reader.readDouble()
            default: try reader.skipValue()
            }
        }
        if let breakRatio { return .flow(breakRatio: breakRatio) }
        guard let work, let breakLength, let rounds, let count = Int(exactly: rounds) else {
            throw JSONByteReader.Malformed(description: "a cycle without its fields")
        }
        return .fixed(work: work, breakLength: breakLength, longBreak: longBreak, rounds: count)
    }

    /// A history line's away stretches, as the session ended.
    private static func readAway(_ reader: inout JSONByteReader) throws -> [AwayStretch] {
        try readArray(&reader) { reader in
            var start: Date?, end: Date?, reason = AwayStretch.Reason.asleep, kept = false, threshold = 0.0
            try readObject(&reader) { key, reader in
                switch key {
                case .start: start = try date(&reader)
                case .end: end = try optionalDate(&reader)
                case .kept: kept = try reader.readBool()
                case .threshold: threshold = try reader.readDouble()
                case .reason:
                    // A reason a newer retime knows still counts as away.
                    reason = AwayStretch.Reason(rawValue: try reader.readString()) ?? .idle
                default: try reader.skipValue()
                }
            }
            guard let start else { throw JSONByteReader.Malformed(description: "an away stretch without its start") }
            return AwayStretch(reason: reason, start: start, end: end, threshold: threshold, kept: kept)
        }
    }

    private static func readBreaks(_ reader: inout JSONByteReader) throws -> [Break] {
        try readArray(&reader) { reader in
            var start: Date?, end: Date?
            try readObject(&reader) { key, reader in
                switch key {
                case .start: start = try date(&reader)
                case .end: end = try optionalDate(&reader)
                default: try reader.skipValue()
                }
            }
            guard let start else { throw JSONByteReader.Malformed(description: "a break without a start") }
            return Break(start: start, end: end)
        }
    }

    /// Reads `{ "key": value, ... }`, handing each member's key to `member`,
    /// which reads (or skips) the value.
    private static func readObject(_ reader: inout JSONByteReader,
                                   _ member: (Key?, inout JSONByteReader) throws -> Void) throws {
        try reader.expect(UInt8(ascii: "{"))
        if reader.take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try reader.withString(Key.init)
            try reader.expect(UInt8(ascii: ":"))
            try member(key, &reader)
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"))
    }

    /// Reads `[ value, ... ]` with `element`.
    private static func readArray<T>(_ reader: inout JSONByteReader, _ element: (inout JSONByteReader) throws -> T) throws -> [T] {
        var values: [T] = []
        try reader.expect(UInt8(ascii: "["))
        if reader.take(UInt8(ascii: "]")) { return values }
        repeat { values.append(try element(&reader)) } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        return values
    }

    /// The keys a session line may hold, matched on raw bytes: making a
    /// string per key costs more than the rest of the line.
    private enum Key {
        case id, groupId, groupName, startedAt, plannedEnd, endedAt, outcome, strict, breaks, tags, note, origin, start, end
        case bootDeadline, bootID, seconds
        case away, reason, kept, threshold
        case cycle, work, breakLength, breakRatio, longBreak, rounds
        case changed, tagsAdded, tagsRemoved
        case device

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            func equals(_ text: StaticString) -> Bool {
                text.utf8CodeUnitCount == bytes.count && memcmp(text.utf8Start, bytes.baseAddress!, bytes.count) == 0
            }
            guard !bytes.isEmpty else { return nil }
            switch bytes[0] {
            case UInt8(ascii: "i") where equals("id"): self = .id
            case UInt8(ascii: "d") where equals("device"): self = .device
            case UInt8(ascii: "g") where equals("groupId"): self = .groupId
            case UInt8(ascii: "g") where equals("groupName"): self = .groupName
            case UInt8(ascii: "s") where equals("startedAt"): self = .startedAt
            case UInt8(ascii: "s") where equals("strict"): self = .strict
            case UInt8(ascii: "s") where equals("start"): self = .start
            case UInt8(ascii: "p") where equals("plannedEnd"): self = .plannedEnd
            case UInt8(ascii: "e") where equals("endedAt"): self = .endedAt
            case UInt8(ascii: "e") where equals("end"): self = .end
            case UInt8(ascii: "o") where equals("outcome"): self = .outcome
            case UInt8(ascii: "o") where equals("origin"): self = .origin
            case UInt8(ascii: "b") where equals("breaks"): self = .breaks
            case UInt8(ascii: "b") where equals("bootDeadline"): self = .bootDeadline
            case UInt8(ascii: "b") where equals("bootID"): self = .bootID
            case UInt8(ascii: "s") where equals("seconds"): self = .seconds
            case UInt8(ascii: "t") where equals("tags"): self = .tags
            case UInt8(ascii: "t") where equals("tagsAdded"): self = .tagsAdded
            case UInt8(ascii: "t") where equals("tagsRemoved"): self = .tagsRemoved
            case UInt8(ascii: "c") where equals("changed"): self = .changed
            case UInt8(ascii: "c") where equals("cycle"): self = .cycle
            case UInt8(ascii: "w") where equals("work"): self = .work
            case UInt8(ascii: "b") where equals("breakLength"): self = .breakLength
            case UInt8(ascii: "b") where equals("breakRatio"): self = .breakRatio
            case UInt8(ascii: "l") where equals("longBreak"): self = .longBreak
            case UInt8(ascii: "r") where equals("rounds"): self = .rounds
            case UInt8(ascii: "n") where equals("note"): self = .note
            case UInt8(ascii: "a") where equals("away"): self = .away
            case UInt8(ascii: "k") where equals("kept"): self = .kept
            case UInt8(ascii: "t") where equals("threshold"): self = .threshold
            case UInt8(ascii: "r") where equals("reason"): self = .reason
            default: return nil
            }
        }
    }

    private static func outcome(_ bytes: UnsafeBufferPointer<UInt8>) throws -> SessionOutcome {
        switch bytes.count {
        case 9 where bytes[0] == UInt8(ascii: "c"): return .completed
        case 7 where bytes[0] == UInt8(ascii: "s"): return .stopped
        case 6 where bytes[0] == UInt8(ascii: "a"): return .active
        default:
            guard let outcome = SessionOutcome(rawValue: String(decoding: bytes, as: UTF8.self)) else {
                throw JSONByteReader.Malformed(description: "bad outcome")
            }
            return outcome
        }
    }

    private static func origin(_ bytes: UnsafeBufferPointer<UInt8>) throws -> SessionOrigin {
        if bytes.count == 6, memcmp(bytes.baseAddress!, "manual", 6) == 0 { return .manual }
        guard let origin = SessionOrigin(String(decoding: bytes, as: UTF8.self)) else {
            throw JSONByteReader.Malformed(description: "bad origin")
        }
        return origin
    }

    /// Parses the 36-character text form of a UUID from bytes.
    private static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) throws -> UUID {
        guard let uuid = UUIDText.parse(bytes) else { throw JSONByteReader.Malformed(description: "bad UUID") }
        return uuid
    }
}
