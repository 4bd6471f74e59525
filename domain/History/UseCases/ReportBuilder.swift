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
    private let timeZone: TimeZoneRules
    private let grouping: ReportGrouping
    private let groupNames: [GroupID: String]

    public init(grouping: ReportGrouping, timeZone: TimeZoneRules, groupNames: [GroupID: String]) {
        self.grouping = grouping
        self.timeZone = timeZone
        self.days = LocalDays(timeZone: timeZone)
        self.groupNames = groupNames
    }

    /// A summary of one segment's spans in this time zone, made at
    /// `version` (`ReportDays.summary(of:version:)`).
    public func summary(of spans: [SessionSpan], version: String) -> MonthSummary? {
        // Its own days: the starts it consults are the ones it records.
        ReportDays(days: LocalDays(timeZone: timeZone)).summary(of: spans, version: version)
    }

    /// Whether `summary` holds for this time zone's days.
    public func fits(_ summary: MonthSummary) -> Bool {
        ReportDays(days: days).fits(summary)
    }

    /// A report of ended sessions; sessions still running are left out.
    public func build(_ sessions: [Session], since: Date?, until: Date?) -> Report {
        build(sessions.compactMap { SessionSpan($0, withTags: grouping.byTag) }, since: since, until: until)
    }

    /// Sessions that overlap (imports, tracked sessions) are counted once:
    /// a bucket's focused time is the union of its sessions' focused
    /// stretches, not their sum.
    public func build(_ spans: [SessionSpan], since: Date?, until: Date?) -> Report {
        grouping.byName ? byName(spans, since: since, until: until) : build(spans, summaries: [], since: since, until: until)
    }

    /// A report by day or week of `spans` and of the segments `summaries`
    /// stand for, equal to the one of all their sessions' spans
    /// (`ReportDays`). A day's focused time is the union of its stretches,
    /// summed in time order; a week's and the total are its days', summed in
    /// day order.
    public func build(_ spans: [SessionSpan], summaries: [MonthSummary], since: Date?, until: Date?) -> Report {
        precondition(!grouping.byName, "summaries stand for days and weeks")
        let byDay = ReportDays(days: days).sums(of: spans, summaries: summaries)
        var byBucket: [Int64: ReportSum] = grouping == .week ? [:] : byDay, overall = ReportSum()
        for day in byDay.keys.sorted() {
            let sum = byDay[day]!
            if grouping == .week { byBucket[LocalDays.mondayOfWeek(day), default: ReportSum()].add(sum) }
            overall.add(sum)
        }
        return Report(since: since, until: until, grouping: grouping, buckets: dayBuckets(byBucket, since: since, until: until),
                      overall: Self.bucket("total", overall))
    }

    /// By group, tag or both: each name's focused time is the union of its
    /// own sessions' stretches; the total is the union of all of them.
    private func byName(_ spans: [SessionSpan], since: Date?, until: Date?) -> Report {
        var overall = ReportSum(), everything: [(Date, Date)] = []
        for span in spans {
            overall.count(span)
            ReportDays.forEachFocusedStretch(of: span) { everything.append(($0, $1)) }
        }
        overall.focused = ReportDays.union(everything).reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        var sums: [String: ReportSum] = [:], stretches: [String: [(Date, Date)]] = [:]
        for span in spans {
            // By group: one row per group id, labelled by the caller
            // (its name now, and the names it ran under before).
            // By tag: each of its tags (a session with two counts in both).
            let group = groupNames[span.groupId] ?? span.groupName ?? "(deleted group)"
            let tags = span.tags.isEmpty ? [ReportGrouping.untagged] : span.tags
            let names = grouping == .tag ? tags : grouping == .groupTag ? tags.map { "\(group) / \($0)" } : [group]
            for name in names {
                sums[name, default: ReportSum()].count(span)
                ReportDays.forEachFocusedStretch(of: span) { stretches[name, default: []].append(($0, $1)) }
            }
        }
        for (name, list) in stretches {
            sums[name]!.focused = ReportDays.union(list).reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        }
        let buckets = sums.map { Self.bucket($0.key, $0.value) }.sorted { ($0.focusedSeconds, $1.key) > ($1.focusedSeconds, $0.key) }
        return Report(since: since, until: until, grouping: grouping, buckets: buckets, overall: Self.bucket("total", overall))
    }

    private func label(_ bucket: Int64) -> String {
        grouping == .week ? LocalDays.weekLabel(bucket) : LocalDays.label(bucket)
    }

    /// How many buckets `since`/`until` may add around the ones with
    /// sessions: a year of days. `--since 1900-01-01` means "everything",
    /// not 45,000 empty rows.
    static let emptyBucketLimit = 366

    /// Days or weeks in time order, the gaps filled. The range is
    /// `since..<until` when that is at most `emptyBucketLimit` buckets wider
    /// than the sessions, else the sessions' own first to last bucket.
    private func dayBuckets(_ sums: [Int64: ReportSum], since: Date?, until: Date?) -> [Report.Bucket] {
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
        return stride(from: first, through: last, by: Int(step)).map { Self.bucket(label($0), sums[$0] ?? ReportSum()) }
    }

    /// The bucket number of a local day: the day, or the Monday of its week.
    private func bucket(_ day: Int64) -> Int64 {
        grouping == .week ? LocalDays.mondayOfWeek(day) : day
    }

    private static func bucket(_ key: String, _ sum: ReportSum) -> Report.Bucket {
        Report.Bucket(key: key, focusedSeconds: sum.focused, sessions: sum.sessions, completed: sum.completed, stopped: sum.stopped,
                      rounds: sum.rounds)
    }
}
