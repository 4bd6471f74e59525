import Domain
import Foundation

/// Reads the instants of the CLI contract, in the local time zone (`TZ`
/// honoured): a WHEN for `start --until`, and a DATE for `log`/`report`.
struct DateValue {
    var now: Date
    private let fixedTimeZone: TimeZone?

    /// `timeZone` nil means the local zone, looked up on first use: that
    /// costs a third of a millisecond, and most commands never read a date.
    init(now: Date, timeZone: TimeZone? = nil) {
        self.now = now
        fixedTimeZone = timeZone
    }

    var timeZone: TimeZone { fixedTimeZone ?? .current }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// Local days as reports count them, so `--since 2026-03-29` starts
    /// exactly where the report's day 2026-03-29 does.
    var days: LocalDays { LocalDays(timeZone: timeZone) }

    /// WHEN: `HH:MM[:SS]` (its next occurrence) or an ISO-8601 date-time.
    func when(_ text: String, option: String) throws(UsageError) -> Date {
        if let time = timeOfDay(text) {
            var next = calendar.nextDate(after: now, matching: time, matchingPolicy: .nextTime,
                                         repeatedTimePolicy: .first, direction: .forward)
            if let found = next, found <= now { next = calendar.date(byAdding: .day, value: 1, to: found) }
            if let next { return next }
        }
        if let date = Timestamp.parse(text) { return date }
        throw UsageError(.invalidValue, "invalid time '\(text)' for --\(option)",
                         hint: "write HH:MM, HH:MM:SS or an ISO-8601 date-time like 2026-11-22T17:30:00+01:00")
    }

    /// DATE: `YYYY-MM-DD` (local midnight), an ISO-8601 date-time, `today`,
    /// `yesterday`, or `-Nd` (N days ago, at local midnight).
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
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
           let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
           let number = LocalDays.day(year: year, month: month, day: day) {
            return days.start(of: number)
        }
        if let date = Timestamp.parse(text) { return date }
        throw UsageError(.invalidValue, "invalid date '\(text)' for --\(option)",
                         hint: "write YYYY-MM-DD, an ISO-8601 date-time, today, yesterday or -Nd")
    }

    private func timeOfDay(_ text: String) -> DateComponents? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute) else {
            return nil
        }
        let second = parts.count == 3 ? Int(parts[2]) : 0
        guard let second, (0..<60).contains(second) else { return nil }
        return DateComponents(hour: hour, minute: minute, second: second)
    }
}
