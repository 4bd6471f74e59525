import Domain
import JSONDocument

/// The members of a change line that `ChangeLine` reads, taken straight
/// from its bytes: every read of a suite parses every line of every
/// device's log, and building each line's JSON object first (a dictionary
/// of its members, and one per change) was a sixth of a `status`. Exactly
/// as strict as `JSONText.parse`: the line is one JSON object and nothing
/// after it; members it does not know are parsed (so damage in them is
/// still damage) and dropped; a repeated member keeps its last value.
struct LineMembers {
    var at: JSONValue?
    var key: JSONValue?
    var over: JSONValue?
    var seen: JSONValue?
    var delete: JSONValue?
    var ends: JSONValue?
    var value: JSONValue?
    /// Each change, nil where it is not an object; nil if `changes` is
    /// missing or is no array.
    var changes: [ChangeMembers?]?

    /// `values: false` passes over a whole value (`value`) checking only
    /// its shape, and gives `.null` for it: for what only needs to know
    /// which field a line sets (compaction), not to what.
    static func parse(_ line: [UInt8], values: Bool = true) throws -> LineMembers {
        try line.withUnsafeBufferPointer { buffer in
            var reader = JSONByteReader(buffer)
            guard reader.take(UInt8(ascii: "{")) else { throw JSONText.Malformed(description: "not an object") }
            var members = LineMembers()
            if !reader.take(UInt8(ascii: "}")) {
                repeat {
                    let name = try reader.readString()
                    try reader.expect(UInt8(ascii: ":"))
                    switch name {
                    case "at": members.at = try JSONText.readValue(&reader, depth: 1)
                    case "key": members.key = try JSONText.readValue(&reader, depth: 1)
                    case "over": members.over = try JSONText.readValue(&reader, depth: 1)
                    case "seen": members.seen = try JSONText.readValue(&reader, depth: 1)
                    case "delete": members.delete = try JSONText.readValue(&reader, depth: 1)
                    case "ends": members.ends = try JSONText.readValue(&reader, depth: 1)
                    case "value" where values: members.value = try JSONText.readValue(&reader, depth: 1)
                    case "value":
                        try reader.skipValue()
                        members.value = .null
                    case "changes": members.changes = try readChanges(&reader)
                    default: _ = try JSONText.readValue(&reader, depth: 1)
                    }
                } while reader.take(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            guard reader.atEnd else { throw JSONText.Malformed(description: "unexpected text after the value at byte \(reader.index)") }
            return members
        }
    }

    /// The `changes` member: an array of change objects, or (anything
    /// else) parsed and reported as no array.
    private static func readChanges(_ reader: inout JSONByteReader) throws -> [ChangeMembers?]? {
        guard reader.peek() == UInt8(ascii: "[") else {
            _ = try JSONText.readValue(&reader, depth: 1)
            return nil
        }
        _ = reader.take(UInt8(ascii: "["))
        var items: [ChangeMembers?] = []
        if reader.take(UInt8(ascii: "]")) { return items }
        repeat {
            if reader.peek() == UInt8(ascii: "{") {
                items.append(try ChangeMembers.read(&reader))
            } else {
                _ = try JSONText.readValue(&reader, depth: 2)
                items.append(nil)
            }
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        return items
    }
}

/// The members of one change of a line (`{"set":"name","value":…}`).
struct ChangeMembers {
    var set: JSONValue?
    var unset: JSONValue?
    var add: JSONValue?
    var remove: JSONValue?
    var value: JSONValue?
    var delete: JSONValue?

    static func read(_ reader: inout JSONByteReader) throws -> ChangeMembers {
        try reader.expect(UInt8(ascii: "{"))
        var members = ChangeMembers()
        if reader.take(UInt8(ascii: "}")) { return members }
        repeat {
            let name = try reader.readString()
            try reader.expect(UInt8(ascii: ":"))
            let value = try JSONText.readValue(&reader, depth: 3)
            switch name {
            case "set": members.set = value
            case "unset": members.unset = value
            case "add": members.add = value
            case "remove": members.remove = value
            case "value": members.value = value
            case "delete": members.delete = value
            default: break
            }
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"))
        return members
    }
}

extension LineMembers {
    /// The `key` of a line, every other member passed over without being
    /// parsed into values: a write that starts from a snapshot parses only
    /// the lines of the records it changes, and finds them so. Nil when
    /// the line's `key` (its last, as `parse` keeps) is no string.
    static func key(of line: UnsafeBufferPointer<UInt8>) throws -> String? {
        var reader = JSONByteReader(line)
        try reader.expect(UInt8(ascii: "{"))
        if reader.take(UInt8(ascii: "}")) { return nil }
        var key: String?
        repeat {
            let isKey = try reader.withString { $0.elementsEqual("key".utf8) }
            try reader.expect(UInt8(ascii: ":"))
            if isKey, reader.peek() == UInt8(ascii: "\"") {
                key = try reader.readString()
            } else {
                if isKey { key = nil }
                try reader.skipValue()
            }
        } while reader.take(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"))
        return key
    }
}
