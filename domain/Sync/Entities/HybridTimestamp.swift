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
    public init?(text: some StringProtocol) {
        let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 15, parts[0].allSatisfy(\.isASCIIDigit),
              parts[1].count <= 10, parts[1].allSatisfy(\.isASCIIDigit),
              let milliseconds = Int64(parts[0]), milliseconds <= Self.latestMilliseconds,
              let counter = UInt32(parts[1]), Self.isDeviceID(parts[2]) else { return nil }
        self.init(milliseconds: milliseconds, counter: counter, device: String(parts[2]))
    }

    /// A device id as the clock accepts it: 1-64 characters of lower-case
    /// letters, digits and `-` (a UUID's text is one).
    public static func isDeviceID(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
