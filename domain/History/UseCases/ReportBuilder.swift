import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession
import RetimeShared

/// Builds a report from ended sessions, pure. Focused time is split where
/// it crosses a bucket's boundary (a session from 23:30 to 00:30 gives half
/// an hour to each day); a session is counted in the bucket it started in.
/// Day and week buckets run without gaps from the first to the last (or
/// over `since..<until` when given), so a chart shows the empty days too.
///
/// Buckets are keyed by number (local day, or the Monday of an ISO week) or
/// group id while summing, and get their labels once at the end: 100,000
/// sessions make no strings.
public struct ReportBuilder {
    private let days: LocalDays
    private let grouping: ReportGrouping
    private let groupNames: [GroupID: String]

    public init(grouping: ReportGrouping, timeZone: TimeZoneRules, groupNames: [GroupID: String]) {
        self.grouping = grouping
        self.days = LocalDays(timeZone: timeZone)
        self.groupNames = groupNames
    }

    private struct Sum {
        var focused = 0.0, sessions = 0, completed = 0, stopped = 0, rounds = 0

        /// An open-ended session has no planned end to fall short of:
        /// stopping it completes it.
        mutating func count(_ span: SessionSpan) {
            sessions += 1
            if span.outcome == .completed || (span.outcome == .stopped && span.openEnded) { completed += 1 }
            if span.outcome == .stopped && !span.openEnded { stopped += 1 }
            rounds += span.completedRounds
        }
    }

    /// A report of ended sessions; sessions still running are left out.
    public func build(_ sessions: [Session], since: Date?, until: Date?) -> Report {
        build(sessions.compactMap { SessionSpan($0, withTags: grouping.byTag) }, since: since, until: until)
    }

    /// Sessions that overlap (imports, tracked sessions) are counted once:
    /// a bucket's focused time is the union of its sessions' focused
    /// stretches, not their sum.
    public func build(_ spans: [SessionSpan], since: Date?, until: Date?) -> Report {
        var overall = Sum(), everything: [(Date, Date)] = []
        for span in spans {
            overall.count(span)
            forEachFocusedStretch(of: span, endingAt: span.endedAt) { everything.append(($0, $1)) }
        }
        let union = Self.union(everything)
        overall.focused = union.reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        let total = Self.bucket("total", overall)
        if grouping.byName {
            var sums: [String: Sum] = [:], stretches: [String: [(Date, Date)]] = [:]
            for span in spans {
                // By group: one row per group id, labelled by the caller
                // (its name now, and the names it ran under before).
                // By tag: each of its tags (a session with two counts in both).
                let group = groupNames[span.groupId] ?? span.groupName ?? "(deleted group)"
                let tags = span.tags.isEmpty ? [ReportGrouping.untagged] : span.tags
                let names = grouping == .tag ? tags : grouping == .groupTag ? tags.map { "\(group) / \($0)" } : [group]
                for name in names {
                    sums[name, default: Sum()].count(span)
                    forEachFocusedStretch(of: span, endingAt: span.endedAt) { stretches[name, default: []].append(($0, $1)) }
                }
            }
            for (name, list) in stretches {
                sums[name]!.focused = Self.union(list).reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
            }
            let buckets = sums.map { Self.bucket($0.key, $0.value) }.sorted { ($0.focusedSeconds, $1.key) > ($1.focusedSeconds, $0.key) }
            return Report(since: since, until: until, grouping: grouping, buckets: buckets, overall: total)
        }
        var byDay: [Int64: Sum] = [:]
        for span in spans { byDay[bucket(days.day(of: span.startedAt)), default: Sum()].count(span) }
        for (from, to) in union {
            // Walk the stretch day by day, cutting at each local midnight.
            var cursor = from
            var day = days.day(of: from)
            while cursor < to {
                let next = min(to, days.start(of: day + 1))
                byDay[bucket(day), default: Sum()].focused += next.timeIntervalSince(cursor)
                cursor = next
                day += 1
            }
        }
        return Report(since: since, until: until, grouping: grouping, buckets: dayBuckets(byDay, since: since, until: until),
                      overall: total)
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

    /// The bucket number of a local day: the day, or the Monday of its week.
    private func bucket(_ day: Int64) -> Int64 {
        grouping == .week ? LocalDays.mondayOfWeek(day) : day
    }

    private func label(_ bucket: Int64) -> String {
        grouping == .week ? LocalDays.weekLabel(bucket) : LocalDays.label(bucket)
    }

    /// The session's time between its start and end, minus its breaks and
    /// its away stretches.
    private func forEachFocusedStretch(of session: SessionSpan, endingAt end: Date, _ body: (Date, Date) -> Void) {
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

    /// How many buckets `since`/`until` may add around the ones with
    /// sessions: a year of days. `--since 1900-01-01` means "everything",
    /// not 45,000 empty rows.
    static let emptyBucketLimit = 366

    /// Days or weeks in time order, the gaps filled. The range is
    /// `since..<until` when that is at most `emptyBucketLimit` buckets wider
    /// than the sessions, else the sessions' own first to last bucket.
    private func dayBuckets(_ sums: [Int64: Sum], since: Date?, until: Date?) -> [Report.Bucket] {
        let step: Int64 = grouping == .week ? 7 : 1
        let asked = (since.map { bucket(days.day(of: $0)) }, until.map { bucket(days.day(of: $0.addingTimeInterval(-0.000_001))) })
        var first: Int64, last: Int64
        if let firstUsed = sums.keys.min(), let lastUsed = sums.keys.max() {
            first = min(asked.0 ?? firstUsed, firstUsed)
            last = max(asked.1 ?? lastUsed, lastUsed)
            if (last - first) / step - (lastUsed - firstUsed) / step > Self.emptyBucketLimit { (first, last) = (firstUsed, lastUsed) }
        } else {
            guard let from = asked.0, let to = asked.1, to >= from, (to - from) / step <= Self.emptyBucketLimit else { return [] }
            (first, last) = (from, to)
        }
        return stride(from: first, through: last, by: Int(step)).map { Self.bucket(label($0), sums[$0] ?? Sum()) }
    }

    private static func bucket(_ key: String, _ sum: Sum) -> Report.Bucket {
        Report.Bucket(key: key, focusedSeconds: sum.focused, sessions: sum.sessions, completed: sum.completed, stopped: sum.stopped,
                      rounds: sum.rounds)
    }
}
