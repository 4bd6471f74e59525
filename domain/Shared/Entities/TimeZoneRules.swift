import FoundationEssentials

/// A time zone's rules, pure: the UTC offset in force at any instant, as
/// the tz database states it (a table of transitions, then a recurring
/// POSIX rule for instants after the last one). What the calendar maths
/// needs of a zone, without Foundation's `TimeZone`, which answers from ICU
/// and which the binary does not carry (docs/performance.md, "Size").
public struct TimeZoneRules: Sendable, Equatable {
    /// The zone's name (`Europe/Berlin`), as iCalendar's TZID shows it.
    public let identifier: String
    /// Instants (unix seconds, ascending) at which a local time type begins.
    let transitions: [Int64]
    /// The type each transition begins.
    let types: [LocalTimeType]
    /// The type before the first transition.
    let initial: LocalTimeType
    /// The rule after the last transition, if any.
    let rule: RecurringRule?

    public init(identifier: String, transitions: [(at: Int64, type: LocalTimeType)], initial: LocalTimeType, rule: RecurringRule?) {
        self.identifier = identifier
        self.transitions = transitions.map(\.at)
        self.types = transitions.map(\.type)
        self.initial = initial
        self.rule = rule
    }

    public static func == (lhs: TimeZoneRules, rhs: TimeZoneRules) -> Bool {
        lhs.identifier == rhs.identifier && lhs.transitions == rhs.transitions && lhs.types == rhs.types
            && lhs.initial == rhs.initial && lhs.rule == rhs.rule
    }

    /// A zone that keeps one offset for ever.
    public static func fixed(_ identifier: String, offset: Int) -> TimeZoneRules {
        TimeZoneRules(identifier: identifier, transitions: [], initial: LocalTimeType(offset: offset, isDaylightSaving: false), rule: nil)
    }

    /// Coordinated Universal Time.
    public static let utc = fixed("UTC", offset: 0)

    /// Seconds east of UTC at `instant`.
    public func offset(at instant: Date) -> Int {
        offset(atSecond: Int64(instant.timeIntervalSince1970.rounded(.down)))
    }

    /// Seconds east of UTC at unix second `second`.
    public func offset(atSecond second: Int64) -> Int { type(atSecond: second).offset }

    /// Whether daylight-saving time is in force at `instant`.
    public func isDaylightSaving(at instant: Date) -> Bool {
        type(atSecond: Int64(instant.timeIntervalSince1970.rounded(.down))).isDaylightSaving
    }

    /// The first instant after `instant` at which the offset or the
    /// daylight-saving flag changes, if there is one.
    public func nextTransition(after instant: Date) -> Date? {
        let second = Int64(instant.timeIntervalSince1970.rounded(.down))
        var before = type(atSecond: second)
        var index = upperBound(second)
        while index < transitions.count {
            if types[index] != before { return Date(timeIntervalSince1970: Double(transitions[index])) }
            before = types[index]
            index += 1
        }
        guard let rule else { return nil }
        let from = max(second, transitions.last ?? second)
        for change in rule.changes(around: from, years: -1...2) where change.at > second && change.at > (transitions.last ?? .min) {
            if change.type != before { return Date(timeIntervalSince1970: Double(change.at)) }
            before = change.type
        }
        return nil
    }

    func type(atSecond second: Int64) -> LocalTimeType {
        let index = upperBound(second)
        if index == 0 { return transitions.isEmpty ? (rule.map { $0.type(atSecond: second) } ?? initial) : initial }
        if index == transitions.count, let rule { return rule.type(atSecond: second) }
        return types[index - 1]
    }

    /// The number of transitions at or before `second`.
    private func upperBound(_ second: Int64) -> Int {
        var low = 0, high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= second { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// An offset from UTC and whether it is daylight-saving time.
public struct LocalTimeType: Sendable, Equatable {
    public var offset: Int
    public var isDaylightSaving: Bool

    public init(offset: Int, isDaylightSaving: Bool) {
        self.offset = offset
        self.isDaylightSaving = isDaylightSaving
    }
}

/// A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`): standard time, and
/// daylight-saving time between two dates of every year.
public struct RecurringRule: Sendable, Equatable {
    /// A day of the year, as the TZ string writes it.
    public enum Day: Sendable, Equatable {
        /// `Jn`: day 1-365, February 29 never counted.
        case julian(Int)
        /// `n`: day 0-365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5: the last) of month `m`.
        case weekday(month: Int, week: Int, day: Int)
    }

    public var standard: LocalTimeType
    /// Daylight-saving time and when it starts and ends; nil when the zone has none.
    public var daylight: (type: LocalTimeType, start: Day, startTime: Int, end: Day, endTime: Int)?

    public init(standard: LocalTimeType, daylight: (type: LocalTimeType, start: Day, startTime: Int, end: Day, endTime: Int)?) {
        self.standard = standard
        self.daylight = daylight
    }

    public static func == (lhs: RecurringRule, rhs: RecurringRule) -> Bool {
        guard lhs.standard == rhs.standard else { return false }
        switch (lhs.daylight, rhs.daylight) {
        case (nil, nil): return true
        case let (l?, r?): return l.type == r.type && l.start == r.start && l.startTime == r.startTime && l.end == r.end && l.endTime == r.endTime
        default: return false
        }
    }

    func type(atSecond second: Int64) -> LocalTimeType {
        guard daylight != nil else { return standard }
        var current = standard
        for change in changes(around: second, years: -1...1) where change.at <= second { current = change.type }
        return current
    }

    /// The rule's changes in the years around `second`'s, in order: each
    /// year's start of daylight-saving time, then its end.
    func changes(around second: Int64, years: ClosedRange<Int64>) -> [(at: Int64, type: LocalTimeType)] {
        guard let daylight else { return [] }
        let localDay = (second + Int64(standard.offset)) >= 0 ? (second + Int64(standard.offset)) / 86_400
            : (second + Int64(standard.offset) - 86_399) / 86_400
        let (year, _, _) = Timestamp.civil(fromDays: localDay)
        var changes: [(at: Int64, type: LocalTimeType)] = []
        for offset in years {
            let y = year + offset
            // The start is written in standard time, the end in daylight-saving time.
            let start = Self.day(daylight.start, in: y) * 86_400 + Int64(daylight.startTime) - Int64(standard.offset)
            let end = Self.day(daylight.end, in: y) * 86_400 + Int64(daylight.endTime) - Int64(daylight.type.offset)
            if start <= end {
                changes += [(start, daylight.type), (end, standard)]
            } else {
                // Southern hemisphere: the year begins in daylight-saving time.
                changes += [(end, standard), (start, daylight.type)]
            }
        }
        // Stable: a change and the next year's at the same instant keep their order.
        return changes.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Days since 1970-01-01 of `day` in `year`.
    static func day(_ day: Day, in year: Int64) -> Int64 {
        let january1 = Timestamp.days(fromCivil: year, 1, 1)
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        switch day {
        case .julian(let n):
            return january1 + Int64(n) - 1 + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + Int64(n)
        case .weekday(let month, let week, let weekday):
            let first = Timestamp.days(fromCivil: year, Int64(month), 1)
            let firstWeekday = ((first + 4) % 7 + 7) % 7   // 1970-01-01 was a Thursday (4)
            var date = first + (Int64(weekday) - firstWeekday + 7) % 7 + Int64(week - 1) * 7
            let nextMonth = month == 12 ? Timestamp.days(fromCivil: year + 1, 1, 1) : Timestamp.days(fromCivil: year, Int64(month) + 1, 1)
            while date >= nextMonth { date -= 7 }
            return date
        }
    }
}
