import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the instants of the CLI contract, in the local time zone (`TZ`
/// honoured): a WHEN for `start --until`, and a DATE for `log`/`report`.
struct DateValue {
    var now: Date
    private let zone: IntervalCalendar

    init(now: Date, timeZone: TimeZoneRules) {
        self.now = now
        zone = IntervalCalendar(timeZone: timeZone)
    }

    /// The local zone `lookUp` finds, looked up on first use: most
    /// commands never read a date.
    init(now: Date, lookingUp lookUp: @escaping @Sendable () -> TimeZoneRules) {
        self.now = now
        zone = IntervalCalendar(lookingUp: lookUp)
    }

    var timeZone: TimeZoneRules { zone.timeZone }

    /// Local days as reports count them, so `--since 2026-03-29` starts
    /// exactly where the report's day 2026-03-29 does.
    var days: LocalDays { LocalDays(timeZone: timeZone) }

    /// WHEN: `HH:MM[:SS]` (its next occurrence), a local date-time
    /// `YYYY-MM-DD HH:MM[:SS]` (`T` or a space between), or an ISO-8601
    /// date-time with its offset.
    /// Whether WHEN is a bare time of day (its next occurrence), not a date-time.
    func isTimeOfDay(_ text: String) -> Bool { timeOfDay(text) != nil }

    func when(_ text: String, option: String) throws(UsageError) -> Date {
        if let time = timeOfDay(text) {
            // Today's, else tomorrow's; a skipped time is the first instant
            // after the gap, a repeated one its first occurrence.
            let today = days.day(of: now)
            let instant = days.instant(onDay: today, atSecond: time.seconds)
            return instant > now ? instant : days.instant(onDay: today + 1, atSecond: time.seconds)
        }
        if let date = localDateTime(text) ?? Timestamp.parse(text) { return date }
        throw UsageError(.invalidValue, "invalid time '\(text)' for --\(option)",
                         hint: "write HH:MM, HH:MM:SS, 2026-11-22 17:30 (local time) or an ISO-8601 date-time like 2026-11-22T17:30:00+01:00")
    }

    /// A past WHEN (`track`, `edit`): `HH:MM[:SS]` (its latest occurrence
    /// not after now), `today HH:MM`, `yesterday HH:MM`, a local date-time,
    /// or an ISO-8601 date-time.
    func past(_ text: String, option: String) throws(UsageError) -> Date {
        // `10m ago`, `1h30m ago`, `10 minutes ago`, as Watson's and Timewarrior's `--at`.
        if text.lowercased().hasSuffix(" ago") {
            let amount = String(text.dropLast(4)).trimmedSpaces.lowercased()
            let compact = amount.replacing(/\s*(minutes|minute|mins|min)$/, with: "m")
                .replacing(/\s*(hours|hour|hrs|hr)$/, with: "h")
                .replacing(/\s*(seconds|second|secs|sec)$/, with: "s")
            return now.addingTimeInterval(-(try DurationValue.parse(compact, option: option)))
        }
        let words = text.split(separator: " ", maxSplits: 1).map(String.init)
        let today = days.day(of: now)
        if words.count == 2, ["today", "yesterday"].contains(words[0].lowercased()), let time = timeOfDay(words[1]) {
            let day = words[0].lowercased() == "today" ? today : today - 1
            return days.instant(onDay: day, atSecond: time.seconds)
        }
        if let time = timeOfDay(text) {
            let seconds = time.seconds
            let instant = days.instant(onDay: today, atSecond: seconds)
            return instant <= now ? instant : days.instant(onDay: today - 1, atSecond: seconds)
        }
        if let date = localDateTime(text) ?? Timestamp.parse(text) { return date }
        throw UsageError(.invalidValue, "invalid time '\(text)' for --\(option)",
                         hint: "write HH:MM (today, or yesterday if later), yesterday 14:00, 10m ago, 2026-11-20 09:00 (local time) or an ISO-8601 date-time")
    }

    /// How `past` read `text` when that may surprise: a bare time of day
    /// later than now means yesterday's, which an error about the times
    /// must say (a minute ahead is a day back).
    func pastReading(_ text: String, option: String) -> String? {
        guard timeOfDay(text) != nil, let date = try? past(text, option: option), days.day(of: date) < days.day(of: now) else { return nil }
        return "--\(option) \(text) was read as yesterday's, \(LocalTime.dateTime(date)), since today's is later than now"
    }

    /// DATE: `YYYY-MM-DD` (local midnight), a local date-time, an ISO-8601
    /// date-time, `today`, `yesterday`, or `-Nd` (N days ago, at local
    /// midnight).
    func date(_ text: String, option: String) throws(UsageError) -> Date {
        let lowered = text.lowercased()
        let today = days.day(of: now)
        switch lowered {
        case "today": return days.start(of: today)
        case "yesterday": return days.start(of: today - 1)
        default: break
        }
        if lowered.hasPrefix("-"), lowered.hasSuffix("d"), let back = Int(lowered.dropFirst().dropLast()), (0...36_500).contains(back) {
            return days.start(of: today - Int64(back))
        }
        if let number = day(text) { return days.start(of: number) }
        if let date = localDateTime(text) ?? Timestamp.parse(text) { return date }
        throw UsageError(.invalidValue, "invalid date '\(text)' for --\(option)",
                         hint: "write YYYY-MM-DD, 2026-11-22 17:30 (local time), an ISO-8601 date-time, today, yesterday or -Nd")
    }

    /// The `--since`/`--until` DATEs of a history command. A range that
    /// holds no instant is a mistake (swapped dates, or one day given twice
    /// to an exclusive `--until`), not a question whose answer is "none".
    func range(_ parsed: ParsedCommand) throws(UsageError) -> (since: Date?, until: Date?) {
        let since = try parsed.value("since").map { text throws(UsageError) in try date(text, option: "since") }
        let until = try parsed.value("until").map { text throws(UsageError) in try date(text, option: "until") }
        if let since, let until, since >= until {
            throw UsageError(.invalidValue, "--since \(parsed.value("since")!) is not before --until \(parsed.value("until")!)",
                             hint: "--until is exclusive: for one day, give the next day (--since 2026-11-22 --until 2026-11-23)",
                             command: parsed.commandName)
        }
        return (since, until)
    }

    /// `YYYY-MM-DD` as a day number, or nil.
    private func day(_ text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Self.digits(parts[0]), let month = Self.digits(parts[1]), let day = Self.digits(parts[2]) else {
            return nil
        }
        return LocalDays.day(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD HH:MM[:SS]` or with `T`, no offset: ISO 8601's local time,
    /// what someone typing a date-time means. A time the clocks skip is the
    /// first instant after the gap, a repeated one its first occurrence,
    /// as for schedules.
    private func localDateTime(_ text: String) -> Date? {
        guard let separator = text.firstIndex(where: { $0 == " " || $0 == "T" || $0 == "t" }),
              let day = day(text[..<separator]),
              let time = timeOfDay(text[text.index(after: separator)...]) else {
            return nil
        }
        return days.instant(onDay: day, atSecond: time.seconds)
    }

    /// A time of day, read from `HH:MM[:SS]`.
    struct TimeOfDay {
        var hour, minute, second: Int
        var seconds: Int64 { Int64(hour * 3_600 + minute * 60 + second) }
    }

    private func timeOfDay(_ text: some StringProtocol) -> TimeOfDay? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 }),
              let hour = Self.digits(parts[0]), let minute = Self.digits(parts[1]),
              (0..<24).contains(hour), (0..<60).contains(minute) else {
            return nil
        }
        let second = parts.count == 3 ? Self.digits(parts[2]) : 0
        guard let second, (0..<60).contains(second) else { return nil }
        return TimeOfDay(hour: hour, minute: minute, second: second)
    }

    /// A number written in ASCII digits only: `Int("+1")` is 1, and a
    /// sign has no place in a date or a time.
    private static func digits(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
