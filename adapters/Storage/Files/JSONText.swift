import Domain
import JSONDocument

/// JSON text to and from `JSONValue` for the store's suite files, without
/// Foundation's coders: every command reads a suite or two, and JSONDecoder's
/// generic machinery (type metadata built and protocol conformances looked up
/// at run time) cost more than the rest of a `retime status`.
///
/// The reader is strict RFC 8259 (one value, nothing after it but
/// whitespace); the writer prints what `JSONEncoder` prints with
/// `[.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]`, byte for byte,
/// so files written before and after look the same.
enum JSONText {
    /// Why bytes are not one JSON value.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses exactly one JSON value. Whole numbers that fit 64 bits are
    /// `.int`, other numbers `.double`; a repeated key keeps its last value.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse($0) }
    }

    /// The same, of bytes in place (a value within a larger text).
    static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var reader = JSONByteReader(buffer)
        do {
            let value = try readValue(&reader, depth: 0)
            guard reader.atEnd else { throw Malformed(description: "unexpected text after the value at byte \(reader.index)") }
            return value
        } catch let error as JSONByteReader.Malformed {
            throw Malformed(description: error.description)
        }
    }

    /// One value at the reader's position (the change-log lines' reader
    /// parses the values inside a line with it).
    static func readValue(_ reader: inout JSONByteReader, depth: Int) throws -> JSONValue {
        guard depth < JSONByteReader.maximumDepth else {
            throw Malformed(description: "nested deeper than \(JSONByteReader.maximumDepth) at byte \(reader.index)")
        }
        switch reader.peek() {
        case UInt8(ascii: "\""): return .string(try reader.readString())
        case UInt8(ascii: "{"):
            _ = reader.take(UInt8(ascii: "{"))
            var members: [(String, JSONValue)] = []
            if reader.take(UInt8(ascii: "}")) { return .object([:]) }
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                members.append((key, try readValue(&reader, depth: depth + 1)))
            } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
            // The table made at its size at once (a repeated member keeps
            // its last value): inserted member by member, a session's
            // twenty grew it five times, each growth hashing every key again.
            return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
        case UInt8(ascii: "["):
            _ = reader.take(UInt8(ascii: "["))
            var items: [JSONValue] = []
            if reader.take(UInt8(ascii: "]")) { return .array(items) }
            repeat { items.append(try readValue(&reader, depth: depth + 1)) } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            return .array(items)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            guard reader.takeNull() else { throw Malformed(description: "bad literal at byte \(reader.index)") }
            return .null
        case .some: return try reader.readStrictNumber()
        case nil: throw Malformed(description: "no value")
        }
    }

    /// The suite-file layout: two-space indents, `"key" : value`, keys in
    /// order, empty containers as `[\n\n]` the way JSONEncoder writes them.
    static func pretty(_ value: JSONValue) throws -> [UInt8] {
        try JSONTextWriter.write(value, layout: .pretty)
    }

    /// `value` as one JSON-lines entry: compact JSON with keys in order and
    /// a newline, what JSONEncoder wrote with `[.sortedKeys,
    /// .withoutEscapingSlashes]`. Coded straight to a `JSONValue`:
    /// JSONEncoder's generic paths cost a sixth of a `retime start`. The
    /// event log, the audit trail and the service's wire format write these.
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        try compact(value) + [0x0A]
    }

    /// `value` as compact JSON, the bytes JSONEncoder wrote for it.
    static func compact<T: Encodable>(_ value: T) throws -> [UInt8] {
        try JSONTextWriter.write(JSONValueCoding.encode(value), layout: .compact)
    }

    /// Decodes a `T` from JSON text (with the store's dates), through the
    /// byte reader and the tree decoder: no Foundation coder.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONValueCoding.decode(type, from: parse(bytes))
    }
}

extension JSONByteReader {
    /// `-?[0-9]+` as an `Int64`, read from its digits; nil past the type's
    /// range (read as text then, as before). No string is made for it: a
    /// snapshot's sources are six numbers each, and making one a number
    /// was most of reading them.
    static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = digits.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in digits.dropFirst(negative ? 1 : 0) {
            let digit = Int64(byte &- UInt8(ascii: "0"))
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, over) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow, !over else { return nil }
            value = next
        }
        return value
    }

    /// Reads a number by RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    /// Whole numbers that fit 64 bits become `.int`; a number too large for
    /// a Double is malformed rather than infinite.
    mutating func readStrictNumber() throws -> JSONValue {
        skipWhitespace()
        let start = index
        var integral = true
        _ = takeByte(UInt8(ascii: "-"))
        if !takeByte(UInt8(ascii: "0")) {
            guard takeDigits() else { throw Malformed(description: "unexpected byte at \(start)") }
        }
        if takeByte(UInt8(ascii: ".")) {
            integral = false
            guard takeDigits() else { throw Malformed(description: "bad number at byte \(start)") }
        }
        if takeByte(UInt8(ascii: "e")) || takeByte(UInt8(ascii: "E")) {
            integral = false
            _ = takeByte(UInt8(ascii: "+")) || takeByte(UInt8(ascii: "-"))
            guard takeDigits() else { throw Malformed(description: "bad number at byte \(start)") }
        }
        if integral, let number = Self.integer(text(from: start)) { return .int(number) }
        let text = String(decoding: text(from: start), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw Malformed(description: "number out of range at byte \(start)") }
        // Whole values are integers however they are written (`3.0`, `1E2`),
        // as JSONDecoder read them: the same file gives the same tree.
        if number == number.rounded(), abs(number) < 9.2e18 { return .int(Int64(number)) }
        return .double(number)
    }
}
