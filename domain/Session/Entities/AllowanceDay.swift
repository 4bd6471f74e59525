import FoundationEssentials
import RetimeShared

/// Which local day an allowance is spent on: the device's own day, in its
/// time zone. While the machine runs the boot it last spent in, the day is
/// counted on from that spending by the boot-time clock, so moving the wall
/// clock to tomorrow does not refill the allowance and moving it back does
/// not give yesterday's again; after a reboot the wall clock decides, as it
/// does for a strict session's end.
public enum AllowanceDay {
    /// The local day `instant` falls on in `zone`, as days since 1970-01-01.
    public static func day(of instant: Date, in zone: TimeZoneRules) -> Int64 {
        let local = instant.timeIntervalSince1970 + Double(zone.offset(at: instant))
        return Int64((local / 86_400).rounded(.down))
    }

    /// The instant the local day after `day` begins in `zone`.
    public static func end(of day: Int64, in zone: TimeZoneRules) -> Date {
        // A UTC offset is under a day: start from the UTC midnight, then
        // correct by the offset that holds there (twice, for a change of
        // offset within the day).
        var guess = Date(timeIntervalSince1970: Double((day + 1) * 86_400))
        for _ in 0..<2 { guess = Date(timeIntervalSince1970: Double((day + 1) * 86_400 - Int64(zone.offset(at: guess)))) }
        return guess
    }

    /// The instant the device's day is judged by at `now`: the wall clock,
    /// or, in the boot of this device's last spending, that spending's
    /// instant plus the boot time since.
    public static func judgedInstant(at now: Date, boot: BootTimeReading?, lastSpending: AllowanceSpending?) -> Date {
        guard let last = lastSpending, let then = last.boot, let boot, then.bootID == boot.bootID else { return now }
        return last.at.addingTimeInterval(max(0, boot.seconds - then.seconds))
    }

    /// The device's local day at `now` (see `judgedInstant`).
    public static func today(at now: Date, boot: BootTimeReading?, lastSpending: AllowanceSpending?, in zone: TimeZoneRules) -> Int64 {
        day(of: judgedInstant(at: now, boot: boot, lastSpending: lastSpending), in: zone)
    }
}
