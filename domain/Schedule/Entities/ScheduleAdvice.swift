import FoundationEssentials

/// What `schedule add` warns of, without refusing: a schedule that overlaps
/// another (only one session runs at a time, so the later interval is
/// skipped while the earlier's session runs), and a warning lead as long as
/// the interval (its "ends soon" warning, clamped to the start, would come as it starts).
/// Times are compared on the clock face, week by week; a day whose clock
/// changes may shift an overlap by that hour.
public enum ScheduleAdvice {
    public static func warnings(for schedule: Schedule, among others: [Schedule]) -> [String] {
        var warnings: [String] = []
        let length = Self.length(schedule)
        if schedule.warnSeconds > 0, schedule.warnSeconds >= Double(length) {
            warnings.append("its warning lead (\(words(schedule.warnSeconds))) is as long as its interval (\(words(Double(length))))"
                            + " or longer: its 'ends soon' warning comes as the interval starts")
        }
        for other in others where other.id != schedule.id && other.enabled && other.pending == nil {
            let days = overlappingDays(schedule, other)
            guard !days.isEmpty else { continue }
            let named = days.count == 7 ? "every day" : "on " + days.map(\.rawValue).joined(separator: ", ")
            warnings.append("it overlaps '\(other.name)' \(named): one session runs at a time,"
                            + " so whichever interval starts second is skipped while the other's session runs")
        }
        return warnings
    }

    /// Seconds from `from` to `to` on the clock face (across midnight when `to` is earlier).
    static func length(_ schedule: Schedule) -> Int {
        (schedule.to.secondsOfDay - schedule.from.secondsOfDay + 86_400) % 86_400
    }

    /// The days of `schedule` whose interval overlaps one of `other`'s,
    /// in week order.
    static func overlappingDays(_ schedule: Schedule, _ other: Schedule) -> [Weekday] {
        let week = 7 * 86_400
        func spans(_ s: Schedule) -> [(day: Weekday, start: Int, end: Int)] {
            s.orderedWeekdays.map { day in
                let start = (Weekday.allCases.firstIndex(of: day) ?? 0) * 86_400 + s.from.secondsOfDay
                return (day, start, start + length(s))
            }
        }
        let theirs = spans(other)
        return spans(schedule).filter { mine in
            theirs.contains { their in
                // Compared a week apart too: Sunday night's interval runs into Monday.
                [-week, 0, week].contains { shift in mine.start < their.end + shift && their.start + shift < mine.end }
            }
        }.map(\.day)
    }

    private static func words(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let parts = [(total / 3_600, "h"), (total / 60 % 60, "m"), (total % 60, "s")].filter { $0.0 > 0 }
        return parts.isEmpty ? "0s" : parts.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }
}
