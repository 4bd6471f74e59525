import FoundationEssentials
import RetimeShared

/// A group's block lifted on request (`retime allow`): kept with the running
/// session, whose block stays down until it runs out or is cancelled. Its
/// time is counted as a strict session's is (`StrictTime`): the boot-time
/// clock holds its end, so a clock moved forward does not end it early and
/// a clock moved back does not stretch it; after a reboot the wall clock
/// decides (semantics.md, "Cycles and allowances").
public struct RunningAllowance: Hashable, Sendable, Codable {
    public let startedAt: Date
    /// How long the block is lifted for, as asked.
    public let length: TimeInterval
    /// Its end on the boot-time clock; nil where there is no such clock.
    public let bootDeadline: BootTimeReading?
    /// The local day of the device that spends it, as days since
    /// 1970-01-01 (`AllowanceDay`): what it spends is counted on that day.
    public let day: Int64
    /// The device that spends it.
    public let device: String?

    public init(at now: Date, boot: BootTimeReading?, length: TimeInterval, day: Int64, device: String?) {
        self.startedAt = now
        self.length = length
        self.bootDeadline = boot.map { BootTimeReading(bootID: $0.bootID, seconds: $0.seconds + length) }
        self.day = day
        self.device = device
    }

    /// When it runs out if nobody moves the clock.
    public var plannedEnd: Date { startedAt.addingTimeInterval(length) }

    /// The strict-time rule for it: the planned end on the wall clock, and
    /// its deadline on the boot-time clock.
    var strictTime: StrictTime {
        StrictTime(plannedEnd: plannedEnd, owed: bootDeadline == nil ? nil : 0, asOf: bootDeadline, reboot: .wallClockDecides)
    }

    /// Whether it has run out at `now`. Unlike a strict session's end, a
    /// clock moved back does not stretch it: the boot-time clock alone
    /// decides in the same boot.
    public func isOver(at now: Date, boot: BootTimeReading?) -> Bool {
        if let left = bootTimeLeft(at: boot) { return left <= 0 }
        return now >= plannedEnd
    }

    /// Boot time left until it runs out, in the boot it started in; nil
    /// after a reboot or without a boot-time clock.
    func bootTimeLeft(at boot: BootTimeReading?) -> TimeInterval? {
        guard let bootDeadline, let boot, boot.bootID == bootDeadline.bootID else { return nil }
        return bootDeadline.seconds - boot.seconds
    }

    /// When it runs out on the wall clock, as of `now`: as long from now as
    /// the boot-time clock still has to run, or the planned end.
    public func end(at now: Date, boot: BootTimeReading?) -> Date {
        guard let left = bootTimeLeft(at: boot) else { return plannedEnd }
        return now.addingTimeInterval(max(0, left))
    }

    /// How much of it has been used by `now` (at most its length): boot
    /// time in the same boot, else wall time.
    public func used(at now: Date, boot: BootTimeReading?) -> TimeInterval {
        let elapsed = bootTimeLeft(at: boot).map { length - $0 } ?? now.timeIntervalSince(startedAt)
        return min(length, max(0, elapsed))
    }

    /// The wall-clock instant it ran out, as recorded once it has: its
    /// planned end, or as much before `now` as the boot-time clock ran past
    /// its deadline (the wall clock was moved).
    public func ranOut(at now: Date, boot: BootTimeReading?) -> Date {
        guard let left = bootTimeLeft(at: boot) else { return min(plannedEnd, now) }
        return now.addingTimeInterval(min(0, left))
    }
}
