import FoundationEssentials
import RetimeShared

/// Local calendar days in one time zone, for bucketing history: which local
/// day an instant falls on and when each day starts, DST included (a day
/// of 23 or 25 hours is one day; a midnight that does not exist starts the
/// day at the first instant after it). Memoises day starts, so bucketing
/// 100,000 sessions asks the time zone a few hundred times, not 100,000.
public final class LocalDays {
    private let calendar: IntervalCalendar
    private let offsets: OffsetCache
    private var starts: [Int64: Date] = [:]

    public init(timeZone: TimeZoneRules) {
        calendar = IntervalCalendar(timeZone: timeZone)
        offsets = OffsetCache(timeZone: timeZone)
    }

    /// The instant local day `day` (days since 1970-01-01) begins.
    public func start(of day: Int64) -> Date {
        if let known = starts[day] { return known }
        let start = calendar.resolve(localSeconds: day * 86_400, offsets: offsets)
        starts[day] = start
        return start
    }

    /// The first and last day whose start has been asked for (a day's
    /// number, or where it falls, is worked out from the starts of it and
    /// its neighbours only): what a sum made with these days depends on.
    public var consultedDays: ClosedRange<Int64>? {
        guard let first = starts.keys.min(), let last = starts.keys.max() else { return nil }
        return first...last
    }

    /// The instant of a wall time on local day `day`, `second` seconds after
    /// its midnight, by the schedules' DST rules: a time the clocks skip
    /// means the first instant after the gap, a repeated one its first
    /// occurrence.
    public func instant(onDay day: Int64, atSecond second: Int64) -> Date {
        calendar.resolve(localSeconds: day * 86_400 + second, offsets: offsets)
    }

    /// The local day `instant` falls on: a UTC offset is under a day, so it
    /// is the UTC day or one of its neighbours.
    public func day(of instant: Date) -> Int64 {
        var day = Int64((instant.timeIntervalSince1970 / 86_400).rounded(.down))
        while instant < start(of: day) { day -= 1 }
        while instant >= start(of: day + 1) { day += 1 }
        return day
    }

    /// `2026-11-22`.
    public static func label(_ day: Int64) -> String { IntervalCalendar.label(day) }

    /// The day number of a date of the proleptic Gregorian calendar (the one
    /// ISO 8601 and history's timestamps use), or nil if there is no such date.
    public static func day(year: Int, month: Int, day: Int) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let number = Timestamp.days(fromCivil: Int64(year), Int64(month), Int64(day))
        let (y, m, d) = Timestamp.civil(fromDays: number)
        return (y, m, d) == (Int64(year), Int64(month), Int64(day)) ? number : nil
    }

    /// The ISO-8601 week of a day, `2026-W47` (weeks start on Monday; a
    /// week belongs to the year that holds its Thursday).
    public static func weekLabel(_ day: Int64) -> String {
        let monday = mondayOfWeek(day)
        let (year, _, _) = Timestamp.civil(fromDays: monday + 3)
        let week = (monday + 3 - Timestamp.days(fromCivil: year, 1, 1)) / 7 + 1
        return "\(year)-W\(week < 10 ? "0" : "")\(week)"
    }

    /// The Monday of the ISO week holding `day` (1970-01-01 was a Thursday).
    public static func mondayOfWeek(_ day: Int64) -> Int64 {
        let weekday = ((day + 3) % 7 + 7) % 7   // 0 = Monday
        return day - weekday
    }
}
