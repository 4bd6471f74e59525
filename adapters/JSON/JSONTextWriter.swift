import RetimeShared
/// The one JSON text writer: a `JSONValue` as bytes, object keys sorted.
/// The store's files, history's events and audit lines, the system
/// service's wire format, exports and the CLI's `--json` documents all
/// come out of it, with the one string escaper below; they differ only in
/// the policies named here, each for a reason.
public enum JSONTextWriter {
    public enum Layout: Sendable {
        /// One line, no spaces (`--json`, JSON-lines files, the wire).
        case compact
        /// JSONEncoder's `.prettyPrinted` layout: two-space indents,
        /// `"key" : value`, empty containers as `[\n\n]` (the suite files).
        case pretty
    }

    public enum Numbers: Sendable {
        /// As JSONEncoder writes them (`1.5`, `3`): stored values read back
        /// exactly. A non-finite number is an error.
        case exact
        /// To the millisecond, whole ones without a fraction, non-finite
        /// ones as null: what a person or a script reads (`--json`).
        case milliseconds
    }

    /// Why a value cannot be written.
    public struct Unwritable: Error, CustomStringConvertible {
        public var description: String
    }

    public static func write(_ value: JSONValue, layout: Layout, numbers: Numbers = .exact,
                             strings: JSONStringEscaping.Policy = .asJSONEncoder) throws -> [UInt8] {
        var writer = Writer(compact: layout == .compact, numbers: numbers, strings: strings)
        try writer.value(value, indent: 0)
        return writer.bytes
    }

    private struct Writer {
        let compact: Bool
        let numbers: Numbers
        let strings: JSONStringEscaping.Policy
        var bytes: [UInt8] = []

        mutating func value(_ value: JSONValue, indent: Int) throws {
            switch value {
            case .null: raw("null")
            case .bool(let flag): raw(flag ? "true" : "false")
            case .int(let number): bytes.append(contentsOf: String(number).utf8)
            case .double(let number): try self.number(number)
            case .string(let text): JSONStringEscaping.append(text, to: &bytes, policy: strings)
            case .array(let items):
                open("[", count: items.count)
                for (index, item) in items.enumerated() {
                    spaces(indent + 2)
                    try self.value(item, indent: indent + 2)
                    separate(index, of: items.count)
                }
                close("]", indent: indent)
            case .object(let members):
                // Sorted with their values: no second lookup per key.
                let sorted = members.sorted { $0.key < $1.key }
                open("{", count: sorted.count)
                for (index, member) in sorted.enumerated() {
                    spaces(indent + 2)
                    JSONStringEscaping.append(member.key, to: &bytes, policy: strings)
                    if compact { raw(":") } else { raw(" : ") }
                    try self.value(member.value, indent: indent + 2)
                    separate(index, of: sorted.count)
                }
                close("}", indent: indent)
            }
        }

        private mutating func number(_ number: Double) throws {
            switch numbers {
            case .exact:
                guard number.isFinite else { throw Unwritable(description: "\(number) is not a JSON number") }
                var text = number.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                bytes.append(contentsOf: text.utf8)
            case .milliseconds:
                guard number.isFinite else { return raw("null") }
                let rounded = (number * 1_000).rounded() / 1_000
                let text = rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
                bytes.append(contentsOf: text.utf8)
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
    }
}

/// The one JSON string escaper.
public enum JSONStringEscaping {
    public enum Policy: Sendable {
        /// What JSONEncoder writes: `"` and `\`, and the C0 controls (as
        /// `\n`-style or `\u00XX` escapes); everything else as it is. Stored
        /// files keep the bytes files written before them had.
        case asJSONEncoder
        /// Also DEL, the C1 controls and the line and paragraph separators
        /// (U+2028, U+2029) as `\u` escapes: output a terminal shows or a
        /// JavaScript parser reads, where those act instead of being text.
        case safeForTerminals
    }

    public static func append(_ text: String, to bytes: inout [UInt8], policy: Policy = .asJSONEncoder) {
        bytes.append(UInt8(ascii: "\""))
        if policy == .safeForTerminals, text.unicodeScalars.contains(where: needsEscapeForTerminals) {
            for scalar in text.unicodeScalars {
                if needsEscapeForTerminals(scalar) { unicode(scalar.value, into: &bytes) } else { escapeASCII(String(scalar), into: &bytes) }
            }
        } else {
            escapeASCII(text, into: &bytes)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscapeForTerminals(_ scalar: Unicode.Scalar) -> Bool {
        (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func unicode(_ value: UInt32, into bytes: inout [UInt8]) {
        bytes += [0x5C, UInt8(ascii: "u"), hex[Int(value >> 12 & 0xF)], hex[Int(value >> 8 & 0xF)], hex[Int(value >> 4 & 0xF)], hex[Int(value & 0xF)]]
    }

    private static func escapeASCII(_ text: String, into bytes: inout [UInt8]) {
        // Most strings need no escape: copied whole (byte by byte, a
        // session's twenty strings were a sixth of writing it).
        var text = text
        let plain = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain { return }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [0x5C, 0x22]
            case UInt8(ascii: "\\"): bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
            case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
            case 0..<0x20: unicode(UInt32(byte), into: &bytes)
            default: bytes.append(byte)
            }
        }
    }
}
