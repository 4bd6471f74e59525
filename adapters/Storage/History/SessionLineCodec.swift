import Domain
import Foundation

/// One history line: a session as one JSON object with sorted keys, ending in
/// a newline. Encoding uses the store's JSON coder; decoding scans bytes
/// directly, because reports read hundreds of thousands of lines.
enum SessionLineCodec {
    static func encode(_ session: Session) throws -> [UInt8] {
        Array(try StoreJSON.encoder().encode(session)) + [UInt8(ascii: "\n")]
    }

    static func decode(_ line: UnsafeBufferPointer<UInt8>) throws -> Session {
        var reader = JSONByteReader(line)
        var id: SessionID?, groupId: GroupID?, startedAt: Date?, plannedEnd: Date?, endedAt: Date?
        var outcome: SessionOutcome?, strict = false, breaks: [Break] = [], tags: [String] = [], note: String?
        var origin = SessionOrigin.manual
        try reader.expect(UInt8(ascii: "{"))
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                switch key {
                case "id": id = SessionID(try reader.withString(uuid))
                case "groupId": groupId = GroupID(try reader.withString(uuid))
                case "startedAt": startedAt = try date(&reader)
                case "plannedEnd": plannedEnd = try optionalDate(&reader)
                case "endedAt": endedAt = try optionalDate(&reader)
                case "outcome": outcome = SessionOutcome(rawValue: try reader.readString())
                case "strict": strict = try reader.readBool()
                case "breaks": breaks = try readBreaks(&reader)
                case "tags": tags = try readStrings(&reader)
                case "note": note = reader.takeNull() ? nil : try reader.readString()
                case "origin":
                    let text = try reader.readString()
                    guard let parsed = SessionOrigin(text) else { throw JSONByteReader.Malformed(description: "bad origin") }
                    origin = parsed
                default: try reader.skipValue()
                }
            } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
        }
        guard reader.atEnd else { throw JSONByteReader.Malformed(description: "bytes after the session") }
        guard let id, let groupId, let startedAt, let outcome else {
            throw JSONByteReader.Malformed(description: "id, groupId, startedAt or outcome is missing")
        }
        return Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt,
                       outcome: outcome, strict: strict, breaks: breaks, tags: tags, note: note, origin: origin)
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

    private static func readStrings(_ reader: inout JSONByteReader) throws -> [String] {
        var strings: [String] = []
        try reader.expect(UInt8(ascii: "["))
        if reader.take(UInt8(ascii: "]")) { return strings }
        repeat { strings.append(try reader.readString()) } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        return strings
    }

    private static func readBreaks(_ reader: inout JSONByteReader) throws -> [Break] {
        var breaks: [Break] = []
        try reader.expect(UInt8(ascii: "["))
        if reader.take(UInt8(ascii: "]")) { return breaks }
        repeat {
            var start: Date?, end: Date?
            try reader.expect(UInt8(ascii: "{"))
            if !reader.take(UInt8(ascii: "}")) {
                repeat {
                    let key = try reader.readString()
                    try reader.expect(UInt8(ascii: ":"))
                    switch key {
                    case "start": start = try date(&reader)
                    case "end": end = try optionalDate(&reader)
                    default: try reader.skipValue()
                    }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            guard let start else { throw JSONByteReader.Malformed(description: "a break without a start") }
            breaks.append(Break(start: start, end: end))
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        return breaks
    }

    /// Parses the 36-character text form of a UUID from bytes.
    private static func uuid(_ bytes: UnsafeBufferPointer<UInt8>) throws -> UUID {
        guard bytes.count == 36 else { throw JSONByteReader.Malformed(description: "bad UUID") }
        var raw = [UInt8](repeating: 0, count: 16)
        var out = 0, index = 0
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard bytes[index] == UInt8(ascii: "-") else { throw JSONByteReader.Malformed(description: "bad UUID") }
                index += 1
                continue
            }
            guard let high = hex(bytes[index]), let low = hex(bytes[index + 1]) else {
                throw JSONByteReader.Malformed(description: "bad UUID")
            }
            raw[out] = high << 4 | low
            out += 1
            index += 2
        }
        return UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                           raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
