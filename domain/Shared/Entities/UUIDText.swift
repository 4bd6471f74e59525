import FoundationEssentials

/// The 36-character text form of a UUID (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`),
/// read and written here rather than by Foundation, whose `uuid_parse` and
/// `uuid_unparse` go through `sscanf` and `snprintf` (about 8,000 and 6,000
/// instructions a call); ids are read and written by every command. Reads
/// exactly the RFC 9562 form, as `UUID(uuidString:)` reads it; Foundation on
/// Linux also takes some malformed texts (a digit short), which are refused
/// here. A test holds both to that.
public enum UUIDText {
    /// The UUID the text spells, hex digits in any case; nil if it is not one.
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The UUID the bytes spell, hex digits in any case; nil if they are not one.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36, bytes[8] == hyphen, bytes[13] == hyphen, bytes[18] == hyphen, bytes[23] == hyphen else {
            return nil
        }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var invalid: UInt8 = 0
        withUnsafeMutableBytes(of: &raw) { out in
            var index = 0
            for position in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 { index += 1 }
                let high = nibble(bytes[index]), low = nibble(bytes[index + 1])
                invalid |= (high | low) & 0xF0
                out[position] = high << 4 | low
                index += 2
            }
        }
        return invalid == 0 ? UUID(uuid: raw) : nil
    }

    /// The text form in lower case, as retime writes ids.
    public static func lowercase(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var index = 0
                for position in 0..<16 {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        out[index] = hyphen
                        index += 1
                    }
                    out[index] = digit(raw[position] >> 4)
                    out[index + 1] = digit(raw[position] & 0x0F)
                    index += 2
                }
                return 36
            }
        }
    }

    private static let hyphen = UInt8(ascii: "-")

    /// The lower-case hex digit of a value below 16.
    @inline(__always)
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// The value of a hex digit, or 0xFF for any other byte.
    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8 {
        let decimal = byte &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")   // folds A-F onto a-f
        return letter < 6 ? letter + 10 : 0xFF
    }
}
