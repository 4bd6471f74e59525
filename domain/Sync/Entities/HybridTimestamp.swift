import FoundationEssentials

/// A hybrid logical clock reading: the order of changes made on several
/// devices that share a data folder (docs/storage.md, "Devices").
///
/// Ordered by `milliseconds` (wall time, or the latest wall time this
/// device had seen from any device when it was later than its own clock),
/// then `counter` (changes within one such millisecond), then `device` (the
/// tiebreak that makes the order total). A change made after a device has
/// seen another device's change always orders after it, whatever the two
/// clocks say: a machine whose clock runs fast cannot win an edit made
/// elsewhere after its own was seen.
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let milliseconds: Int64
    public let counter: UInt32
    /// The id of the device that made the change.
    public let device: String

    public init(milliseconds: Int64, counter: UInt32 = 0, device: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.milliseconds, lhs.counter, lhs.device) < (rhs.milliseconds, rhs.counter, rhs.device)
    }

    /// The reading `steps` counts after this one, on the same device: the
    /// stamps of one batch of changes made at once.
    public func advanced(by steps: Int) -> HybridTimestamp {
        let total = UInt64(counter) + UInt64(max(0, steps))
        let carry = Int64(total >> 32)
        return HybridTimestamp(milliseconds: milliseconds + carry, counter: UInt32(truncatingIfNeeded: total), device: device)
    }

    /// The wall-time part as an instant (what `sync status` shows).
    public var date: Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }

    /// `1764000000123-0-DEVICE`: milliseconds, counter, device; read back by
    /// `init?(text:)`.
    public var description: String {
        "\(milliseconds)-\(counter)-\(device)"
    }

    /// The largest wall time a reading may carry: year 9999. Anything past
    /// it is not a clock reading but damage.
    public static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Parses `description`'s form; nil for anything else (negative or
    /// absurd times, a counter out of range, an empty or odd device id).
    /// Read byte by byte: every line of every change log holds one, and
    /// the generic string algorithms cost a command a millisecond.
    public init?(text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HybridTimestamp? {
        var index = 0
        func number(maxDigits: Int) -> UInt64? {
            let start = index
            var value: UInt64 = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                guard index - start < maxDigits else { return nil }
                value = value * 10 + UInt64(bytes[index] - 0x30)
                index += 1
            }
            return index > start ? value : nil
        }
        guard let milliseconds = number(maxDigits: 15), milliseconds <= UInt64(latestMilliseconds),
              index < bytes.count, bytes[index] == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let counter = number(maxDigits: 10), counter <= UInt64(UInt32.max), index < bytes.count,
              bytes[index] == UInt8(ascii: "-") else { return nil }
        let device = UnsafeBufferPointer(rebasing: bytes[(index + 1)...])
        guard isDeviceID(device) else { return nil }
        return HybridTimestamp(milliseconds: Int64(milliseconds), counter: UInt32(counter), device: String(decoding: device, as: UTF8.self))
    }

    /// A device id as the clock accepts it: 1-64 characters of lower-case
    /// letters, digits and `-` (a UUID's text is one).
    public static func isDeviceID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isDeviceID($0) }
    }

    private static func isDeviceID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        for byte in bytes {
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") else { return false }
        }
        return true
    }
}
