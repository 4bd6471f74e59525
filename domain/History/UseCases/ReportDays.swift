import FoundationEssentials
import RetimeSchedule
import RetimeSession

/// A bucket's running sums while a report is built.
struct ReportSum {
    var focused = 0.0, sessions = 0, completed = 0, stopped = 0, rounds = 0

    /// An open-ended session has no planned end to fall short of:
    /// stopping it completes it.
    mutating func count(_ span: SessionSpan) {
        sessions += 1
        if span.outcome == .completed || (span.outcome == .stopped && span.openEnded) { completed += 1 }
        if span.outcome == .stopped && !span.openEnded { stopped += 1 }
        rounds += span.completedRounds
    }

    /// Another bucket's sums: a day's into its week's or the total.
    mutating func add(_ other: ReportSum) {
        focused += other.focused
        sessions += other.sessions
        completed += other.completed
        stopped += other.stopped
        rounds += other.rounds
    }

    /// A summarised day's sessions (its focused time is the caller's to take).
    mutating func count(_ day: MonthSummary.Day) {
        sessions += day.sessions
        completed += day.completed
        stopped += day.stopped
        rounds += day.rounds
    }
}

/// Sums per local day, the ground of reports by day and week: the sessions
/// that started in each day, and each day's focused time, the union of
/// every session's focused stretches cut at local midnights and summed in
/// time order.
///
/// Summaries (`MonthSummary`) stand in for their months' sessions. A day's
/// focused time depends only on the stretches that overlap it, so a day
/// that only one summary's stretches overlap takes that summary's own sum:
/// the same pieces, added in the same order, from the same zero. A day that
/// two parts of history overlap (a session across a month's end, a local
/// day astride two UTC months, sessions read beside a summary) is summed
/// again from the union of every part's stretches within it. Counts add up
/// as integers. So the sums are those of reading every session, to the bit.
struct ReportDays {
    let days: LocalDays

    /// The sums by day of `spans` and of the months `summaries` stand for.
    func sums(of spans: [SessionSpan], summaries: [MonthSummary]) -> [Int64: ReportSum] {
        var sums: [Int64: ReportSum] = [:]
        for span in spans { sums[days.day(of: span.startedAt), default: ReportSum()].count(span) }
        var stretches: [(Date, Date)] = []
        for span in spans { ReportDays.forEachFocusedStretch(of: span) { stretches.append(($0, $1)) } }
        let union = ReportDays.union(stretches)
        var read: [Int64: Double] = [:]
        walk(union) { day, seconds in read[day, default: 0] += seconds }
        // The summaries with focused time in each day: one, or -1 for
        // several (or one and the sessions read), listed in `sharers`.
        var owner: [Int64: Int] = [:], sharers: [Int64: [Int]] = [:]
        for (index, summary) in summaries.enumerated() {
            for day in summary.days {
                sums[day.day, default: ReportSum()].count(day)
                guard day.focusedSeconds > 0 else { continue }
                if let first = owner[day.day] {
                    if first >= 0 { sharers[day.day] = [first] }
                    owner[day.day] = -1
                    sharers[day.day, default: []].append(index)
                } else {
                    owner[day.day] = read[day.day] == nil ? index : -1
                    if read[day.day] != nil { sharers[day.day] = [index] }
                }
            }
        }
        for (day, seconds) in read where owner[day] == nil { sums[day, default: ReportSum()].focused = seconds }
        for (day, who) in owner {
            sums[day]?.focused = who >= 0
                ? summaries[who].days[Self.position(of: day, in: summaries[who].days)].focusedSeconds
                : shared(day, read: union, summaries: (sharers[day] ?? []).map { summaries[$0] })
        }
        return sums
    }

    /// A day's focused time from every part that has time in it: the union
    /// of their stretches within the day, each piece's part of the day
    /// added in time order, as `walk` adds it.
    private func shared(_ day: Int64, read: [(Date, Date)], summaries: [MonthSummary]) -> Double {
        let start = days.start(of: day), end = days.start(of: day + 1)
        var pieces = Self.overlapping(start, end, in: read)
        for summary in summaries {
            pieces += Self.overlapping(start, end, in: summary.stretches.lazy.map { ($0.start, $0.end) })
        }
        var seconds = 0.0
        for (from, to) in ReportDays.union(pieces) where from < end && to > start {
            seconds += min(to, end).timeIntervalSince(max(from, start))
        }
        return seconds
    }

    /// The merged, time-ordered stretches that overlap `start..<end`: found
    /// by halving, since merged stretches end in the order they start.
    private static func overlapping<C: RandomAccessCollection>(_ start: Date, _ end: Date, in stretches: C) -> [(Date, Date)]
    where C.Element == (Date, Date), C.Index == Int {
        var low = stretches.startIndex, high = stretches.endIndex
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].1 <= start { low = middle + 1 } else { high = middle }
        }
        var found: [(Date, Date)] = []
        while low < stretches.endIndex, stretches[low].0 < end {
            found.append(stretches[low])
            low += 1
        }
        return found
    }

    /// Where `day` is among a summary's days (it is there).
    private static func position(of day: Int64, in list: [MonthSummary.Day]) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].day < day { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A summary of one segment's spans (all of them, filtered by nothing),
    /// made at `version`; nil when two of them share an id or its hash (each
    /// must count once, and only reading them says which copy counts).
    /// `days` must be this summary's alone: the starts it consulted are
    /// what it records.
    func summary(of spans: [SessionSpan], version: String) -> MonthSummary? {
        let fingerprints = spans.map { MonthSummary.fingerprint(of: $0.id) }.sorted()
        for index in fingerprints.indices.dropFirst() where fingerprints[index] == fingerprints[index - 1] { return nil }
        var stretches: [(Date, Date)] = []
        for span in spans { ReportDays.forEachFocusedStretch(of: span) { stretches.append(($0, $1)) } }
        let union = ReportDays.union(stretches)
        var sums: [Int64: ReportSum] = [:]
        for span in spans { sums[days.day(of: span.startedAt), default: ReportSum()].count(span) }
        walk(union) { day, seconds in sums[day, default: ReportSum()].focused += seconds }
        let consulted = days.consultedDays
        let starts = spans.isEmpty ? nil : spans.lazy.map(\.startedAt).min()!...spans.lazy.map(\.startedAt).max()!
        return MonthSummary(
            version: version, starts: starts, firstDay: consulted?.lowerBound ?? 0,
            dayStarts: consulted.map { $0.map { days.start(of: $0) } } ?? [],
            days: sums.keys.sorted().map { day in
                let sum = sums[day]!
                return MonthSummary.Day(day: day, focusedSeconds: sum.focused, sessions: sum.sessions, completed: sum.completed,
                                          stopped: sum.stopped, rounds: sum.rounds)
            },
            stretches: union.map { MonthSummary.Stretch(start: $0.0, end: $0.1) }, fingerprints: fingerprints)
    }

    /// Whether this time zone starts every day `summary` was worked out
    /// with where it did: then every number in it is this zone's too.
    func fits(_ summary: MonthSummary) -> Bool {
        summary.dayStarts.indices.allSatisfy { days.start(of: summary.firstDay + Int64($0)) == summary.dayStarts[$0] }
    }

    /// Calls `body` with each local day the merged, time-ordered `union`
    /// covers and the seconds it covers of it, piece by piece in time order,
    /// cutting each piece at local midnights. The day last found is kept:
    /// most pieces fall in the day of the one before.
    func walk(_ union: [(Date, Date)], _ body: (Int64, Double) -> Void) {
        var day: Int64 = 0, dayStart = Date.distantFuture, dayEnd = Date.distantPast
        for (from, to) in union {
            if !(from >= dayStart && from < dayEnd) {
                day = days.day(of: from)
                (dayStart, dayEnd) = (days.start(of: day), days.start(of: day + 1))
            }
            var cursor = from
            while cursor < to {
                let next = min(to, dayEnd)
                body(day, next.timeIntervalSince(cursor))
                cursor = next
                if cursor < to {
                    day += 1
                    (dayStart, dayEnd) = (dayEnd, days.start(of: day + 1))
                }
            }
        }
    }

    /// The stretches merged where they overlap or touch, in time order.
    static func union(_ stretches: [(Date, Date)]) -> [(Date, Date)] {
        var merged: [(Date, Date)] = []
        for stretch in stretches.sorted(by: { $0.0 < $1.0 }) {
            if let last = merged.last, stretch.0 <= last.1 {
                merged[merged.count - 1].1 = max(last.1, stretch.1)
            } else {
                merged.append(stretch)
            }
        }
        return merged
    }

    /// The session's time between its start and end, minus its breaks and
    /// its away stretches.
    static func forEachFocusedStretch(of session: SessionSpan, _ body: (Date, Date) -> Void) {
        let end = session.endedAt
        guard !session.breaks.isEmpty || !session.away.isEmpty else {
            if end > session.startedAt { body(session.startedAt, end) }
            return
        }
        var cursor = session.startedAt
        for pause in (session.breaks + session.away).sorted(by: { $0.start < $1.start }) {
            let pauseEnd = min(pause.end ?? end, end)
            if pause.start > cursor { body(cursor, min(pause.start, end)) }
            cursor = max(cursor, pauseEnd)
        }
        if end > cursor { body(cursor, end) }
    }
}
