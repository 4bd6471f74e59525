import Domain

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
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONByteReader(buffer)
            do {
                let value = try readValue(&reader, depth: 0)
                guard reader.atEnd else { throw Malformed(description: "unexpected text after the value at byte \(reader.index)") }
                return value
            } catch let error as JSONByteReader.Malformed {
                throw Malformed(description: error.description)
            }
        }
    }

    private static func readValue(_ reader: inout JSONByteReader, depth: Int) throws -> JSONValue {
        guard depth < JSONByteReader.maximumDepth else {
            throw Malformed(description: "nested deeper than \(JSONByteReader.maximumDepth) at byte \(reader.index)")
        }
        switch reader.peek() {
        case UInt8(ascii: "\""): return .string(try reader.readString())
        case UInt8(ascii: "{"):
            _ = reader.take(UInt8(ascii: "{"))
            var members: [String: JSONValue] = [:]
            if reader.take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                members[key] = try readValue(&reader, depth: depth + 1)
            } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
            return .object(members)
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
        var writer = Writer(compact: false)
        try writer.value(value, indent: 0)
        return writer.bytes
    }

    /// `value` as one JSON-lines entry: compact JSON with keys in order and
    /// a newline, what JSONEncoder wrote with `[.sortedKeys,
    /// .withoutEscapingSlashes]`. Coded straight to a `JSONValue`:
    /// JSONEncoder's generic paths cost a sixth of a `retime start`. The
    /// event log and the audit trail write these.
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        var writer = Writer(compact: true)
        try writer.value(JSONValueEncoder().encode(value), indent: 0)
        writer.bytes.append(0x0A)
        return writer.bytes
    }

    private struct Writer {
        let compact: Bool
        var bytes: [UInt8] = []

        mutating func value(_ value: JSONValue, indent: Int) throws {
            switch value {
            case .null: raw("null")
            case .bool(let flag): raw(flag ? "true" : "false")
            case .int(let number): bytes.append(contentsOf: String(number).utf8)
            case .double(let number):
                guard number.isFinite else { throw Malformed(description: "\(number) is not a JSON number") }
                var text = number.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                bytes.append(contentsOf: text.utf8)
            case .string(let text): string(text)
            case .array(let items):
                open("[", count: items.count)
                for (index, item) in items.enumerated() {
                    spaces(indent + 2)
                    try self.value(item, indent: indent + 2)
                    separate(index, of: items.count)
                }
                close("]", indent: indent)
            case .object(let members):
                let keys = members.keys.sorted()
                open("{", count: keys.count)
                for (index, key) in keys.enumerated() {
                    spaces(indent + 2)
                    string(key)
                    if compact { raw(":") } else { raw(" : ") }
                    try self.value(members[key]!, indent: indent + 2)
                    separate(index, of: keys.count)
                }
                close("}", indent: indent)
            }
        }

        private mutating func open(_ bracket: StaticString, count: Int) {
            raw(bracket)
            guard !compact else { return }
            bytes.append(0x0A)
            if count == 0 { bytes.append(0x0A) }
        }

        private mutating func separate(_ index: Int, of count: Int) {
            if index < count - 1 { bytes.append(UInt8(ascii: ",")) }
            if !compact { bytes.append(0x0A) }
        }

        private mutating func close(_ bracket: StaticString, indent: Int) {
            spaces(indent)
            raw(bracket)
        }

        private mutating func spaces(_ count: Int) {
            guard !compact else { return }
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
        }

        private mutating func raw(_ literal: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }

        private mutating func string(_ text: String) {
            JSONStringEscaping.append(text, to: &bytes)
        }
    }
}

extension JSONByteReader {
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
        let text = String(decoding: text(from: start), as: UTF8.self)
        if integral, let number = Int64(text) { return .int(number) }
        guard let number = Double(text), number.isFinite else { throw Malformed(description: "number out of range at byte \(start)") }
        // Whole values are integers however they are written (`3.0`, `1E2`),
        // as JSONDecoder read them: the same file gives the same tree.
        if number == number.rounded(), abs(number) < 9.2e18 { return .int(Int64(number)) }
        return .double(number)
    }
}
