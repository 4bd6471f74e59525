import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A forward-only reader of JSON over UTF-8 bytes, for decoding millions of
/// history lines without building intermediate trees. Strict where it
/// matters (structure, escapes), lenient about whitespace and key order.
struct JSONByteReader {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool {
        mutating get { skipWhitespace(); return index >= bytes.count }
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    /// Goes back to an earlier position (to skip a value that failed to read).
    mutating func rewind(to position: Int) {
        index = position
    }

    /// The next significant byte, not consumed.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw Malformed(description: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)") }
        index += 1
    }

    /// Consumes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    /// Consumes `byte` if it is exactly next (whitespace is not skipped:
    /// for the inside of a number).
    mutating func takeByte(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes a run of ASCII digits, returning whether there was one.
    mutating func takeDigits() -> Bool {
        let start = index
        while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        return index > start
    }

    /// The bytes read since `start`.
    func text(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// Reads `null`, returning whether it was there.
    mutating func takeNull() -> Bool { takeLiteral("null") }

    mutating func readBool() throws -> Bool {
        if takeLiteral("true") { return true }
        if takeLiteral("false") { return false }
        throw Malformed(description: "expected true or false at byte \(index)")
    }

    /// Calls `body` with the raw bytes of a string without escapes (the common
    /// case for ids, dates and keys), else with its decoded UTF-8.
    mutating func withString<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return try body(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Malformed(description: "control character in a string at byte \(index)") }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        try readEscapedRest(into: &decoded)
        return try decoded.withUnsafeBufferPointer(body)
    }

    mutating func readString() throws -> String {
        try withString { raw in
            // ASCII (keys, ids, dates, most names) cannot be invalid UTF-8:
            // decoding it skips the generic validation, a tenth of a read.
            if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
            guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed(description: "invalid UTF-8") }
            return text
        }
    }

    /// Reads a JSON number.
    mutating func readDouble() throws -> Double {
        skipWhitespace()
        let start = index
        while index < bytes.count, b("0123456789+-.eE").contains(bytes[index]) { index += 1 }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) else {
            throw Malformed(description: "bad number at byte \(start)")
        }
        return value
    }

    /// How deep `skipValue` goes into nested arrays and objects before it
    /// calls the input malformed: a file of a million `[` must be an error,
    /// not a stack overflow.
    static let maximumDepth = 256

    /// Skips any value: what a reader does with keys it does not know.
    mutating func skipValue() throws {
        try skipValue(depth: 0)
    }

    private mutating func skipValue(depth: Int) throws {
        guard depth < Self.maximumDepth else { throw Malformed(description: "nested deeper than \(Self.maximumDepth) at byte \(index)") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try withString { _ in }
        case UInt8(ascii: "{"):
            index += 1
            if take(UInt8(ascii: "}")) { return }
            repeat {
                _ = try withString { _ in }
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if take(UInt8(ascii: "]")) { return }
            repeat { try skipValue(depth: depth + 1) } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): guard takeNull() else { throw Malformed(description: "bad literal at byte \(index)") }
        case let byte? where byte == UInt8(ascii: "-") || (48...57).contains(byte):
            while index < bytes.count, b("0123456789+-.eE").contains(bytes[index]) { index += 1 }
        default: throw Malformed(description: "unexpected byte at \(index)")
        }
    }

    private mutating func takeLiteral(_ literal: StaticString) -> Bool {
        skipWhitespace()
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// Continues a string at a backslash, decoding escapes, up to the closing quote.
    private mutating func readEscapedRest(into decoded: inout [UInt8]) throws {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return }
            guard byte == UInt8(ascii: "\\") else {
                guard byte >= 0x20 else { throw Malformed(description: "control character in a string") }
                decoded.append(byte)
                continue
            }
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw Malformed(description: "lone surrogate") }
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw Malformed(description: "bad surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Malformed(description: "bad \\u escape") }
                decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
            default: throw Malformed(description: "bad escape")
            }
        }
        throw Malformed(description: "unterminated string")
    }

    private mutating func readHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw Malformed(description: "short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case 48...57: digit = byte - 48
            case 65...70: digit = byte - 55
            case 97...102: digit = byte - 87
            default: throw Malformed(description: "bad hex digit")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

/// Bytes of a string literal, for small membership tests.
private func b(_ text: StaticString) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
}
