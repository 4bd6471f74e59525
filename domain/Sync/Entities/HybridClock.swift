import FoundationEssentials

/// One device's hybrid logical clock: stamps this device's changes so that
/// each orders after every change the device has made or seen, while
/// staying as close to the wall clock as that allows.
///
/// A device whose clock runs far ahead drags every device's wall part
/// ahead with it once its changes are seen (that is what keeps the order
/// causal); `sync status` names such a device (`aheadOfWallClock`), and the
/// order catches up with real time by itself when its clock is set right.
public struct HybridClock: Sendable {
    public let device: String
    /// The latest reading this device has made or seen.
    public private(set) var latest: HybridTimestamp?

    public init(device: String, latest: HybridTimestamp? = nil) {
        self.device = device
        self.latest = latest
    }

    /// Takes in a reading seen in another device's changes (or this
    /// device's own, read back from its log).
    public mutating func observe(_ reading: HybridTimestamp) {
        if latest.map({ reading > $0 }) ?? true { latest = reading }
    }

    /// How far ahead of this device's wall clock a reading may be and still
    /// be taken for its clock: a day (semantics.md, "Clocks"). One further
    /// ahead (a clock that read year 4821 once, a hand edit) is merged but
    /// never adopted: this device's stamps stay near its real time. A
    /// record changed after such a reading is stamped after it all the
    /// same (`after`), so the change wins there as everywhere.
    public static let horizon: Int64 = 86_400_000

    /// The latest wall time (ms) a reading adopted at `now` may carry.
    public static func horizonLimit(now: Date) -> Int64 {
        milliseconds(of: now).addingReportingOverflow(horizon).overflow ? .max : milliseconds(of: now) + horizon
    }

    /// A reading for `count` changes to a record last changed at
    /// `recordLast`, made now: after that change even when it lies beyond
    /// the horizon, which this clock then does not adopt.
    public mutating func tick(now: Date, count: Int, after recordLast: HybridTimestamp?) -> HybridTimestamp {
        guard let recordLast, latest.map({ recordLast > $0 }) ?? true else { return tick(now: now, count: count) }
        var beyond = HybridClock(device: device, latest: recordLast)
        return beyond.tick(now: now, count: count)
    }

    /// The reading for a change made now, later than everything observed.
    public mutating func tick(now: Date) -> HybridTimestamp {
        let wall = Self.milliseconds(of: now)
        let reading: HybridTimestamp
        if let latest, latest.milliseconds >= wall {
            // The wall clock has not passed what was seen: count within it.
            // A full counter moves to the next millisecond (never wraps).
            reading = latest.counter == .max
                ? HybridTimestamp(milliseconds: latest.milliseconds + 1, counter: 0, device: device)
                : HybridTimestamp(milliseconds: latest.milliseconds, counter: latest.counter + 1, device: device)
        } else {
            reading = HybridTimestamp(milliseconds: wall, counter: 0, device: device)
        }
        latest = reading
        return reading
    }

    /// The readings for `count` changes made at once: consecutive, so a
    /// log stores only the first (`HybridTimestamp.advanced(by:)`).
    public mutating func tick(now: Date, count: Int) -> HybridTimestamp {
        let first = tick(now: now)
        if count > 1 { latest = first.advanced(by: count - 1) }
        return first
    }

    /// How far `reading` is ahead of `now`, in seconds; 0 when it is not.
    public static func secondsAhead(_ reading: HybridTimestamp, of now: Date) -> Double {
        max(0, Double(reading.milliseconds - milliseconds(of: now)) / 1_000)
    }

    static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, 0), Double(HybridTimestamp.latestMilliseconds)))
    }
}
