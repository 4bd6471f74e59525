import FoundationEssentials
import RetimeSession

/// What a report by day or week reads, with its months' summaries: each
/// sealed month inside the report's range from its summary (made from the
/// month's sessions and kept, when missing, stale or of another time zone),
/// and the rest of history as spans, read exactly as `spans(matching:)`
/// reads them (`HistorySpans.resolve`).
///
/// A month is read as sessions instead whenever a summary could differ:
/// a segment of it that changed just now (its version unknown), a month not
/// over yet or only partly in the range, a session of it that an amendment
/// changed, or one that another part of history also holds (when the
/// history keeps each id once). Filters by group or tag are not summarised:
/// the report of those reads every session.
struct SummarizedHistory {
    let history: any SessionHistory
    let store: any HistorySummaryStore
    let builder: ReportBuilder
    let now: Date

    /// A month's segments, by their places in the listing.
    private struct Month {
        var key: String
        var segments: [Int]
        var version: String?
    }

    func read(_ query: HistoryQuery) async throws -> (spans: [SessionSpan], summaries: [MonthSummary]) {
        let listed = try await history.segments(matching: query)
        let segments = listed.segments
        let months = Self.months(of: segments, query: query, now: now, deduplicated: listed.deduplicated)
        var kept = months.isEmpty ? HistorySummaries() : await store.summaries()
        var summaries: [Int: MonthSummary] = [:], made = false
        var stale: [Int] = []
        for (index, month) in months.enumerated() {
            if let summary = kept.months[month.key], summary.version == month.version, builder.fits(summary) {
                summaries[index] = summary
            } else {
                stale.append(index)
            }
        }
        // Every line of the stale months, read once: made into summaries,
        // and kept for the months that end up read as sessions after all.
        var read: [Int: [SessionSpan]] = [:]
        if !stale.isEmpty {
            let wanted = stale.flatMap { months[$0].segments }
            for (segment, spans) in zip(wanted, try await history.spans(in: wanted.map { segments[$0] }, matching: HistoryQuery())) {
                read[segment] = spans
            }
            for index in stale {
                let parts = months[index].segments.map { read[$0] ?? [] }
                let spans = HistorySpans.resolve(parts, deduplicated: listed.deduplicated, amended: AmendedSpans())
                guard let version = months[index].version, let summary = builder.summary(of: spans, version: version) else { continue }
                summaries[index] = summary
                kept.months[months[index].key] = summary
                made = true
            }
            // Which kept months share a session, worked out once for all of them.
            if made { kept = HistorySummaries(months: Self.pruned(kept.months, listed: months, query: query)) }
        }
        // Its sessions all in the range (a line may say another month).
        for (index, summary) in summaries {
            if let starts = summary.starts, !(query.matches(startedAt: starts.lowerBound) && query.matches(startedAt: starts.upperBound)) {
                summaries[index] = nil
            }
        }
        let amended = try await history.amendedSpans(matching: query)
        for index in Self.amending(summaries, amended.ids) { summaries[index] = nil }
        var parts = try await spans(of: segments, besides: summaries, months: months, read: read, query: query)
        if listed.deduplicated {
            let shared = Set(summaries.keys.filter { kept.sharing.contains(months[$0].key) })
                .union(Self.holding(parts.values.joined(), in: summaries))
            if !shared.isEmpty {
                for index in shared { summaries[index] = nil }
                parts = try await spans(of: segments, besides: summaries, months: months, read: read.merging(parts) { $1 }, query: query)
            }
        }
        if made { await store.keep(kept) }
        let spans = HistorySpans.resolve(segments.indices.compactMap { parts[$0] }, deduplicated: listed.deduplicated, amended: amended)
        return (spans, summaries.keys.sorted().map { summaries[$0]! })
    }

    /// The months that may be summarised: every segment of the month known
    /// by version and its month over, the month inside the range. A
    /// month's version names each segment's and how they were read.
    private static func months(of segments: [HistorySegment], query: HistoryQuery, now: Date, deduplicated: Bool) -> [Month] {
        var months: [Month] = [], places: [String: Int] = [:]
        for (index, segment) in segments.enumerated() {
            guard let month = segment.month, query.since.map({ $0 <= month.lowerBound }) ?? true,
                  query.until.map({ month.upperBound <= $0 }) ?? true else { continue }
            let key = MonthSummary.key(of: month)
            if places[key] == nil {
                places[key] = months.count
                months.append(Month(key: key, segments: [], version: deduplicated ? "each id once" : "as written"))
            }
            let place = places[key]!
            months[place].segments.append(index)
            if let version = segment.version, segment.sealed(at: now), let known = months[place].version {
                months[place].version = known + "\n" + segment.device + "/" + segment.name + "@" + version
            } else {
                months[place].version = nil
            }
        }
        return months.filter { $0.version != nil }
    }

    /// Every segment's spans but the summarised months', by segment:
    /// those read already (filtered by the query again: a no-op for those
    /// read with it), else read now.
    private func spans(of segments: [HistorySegment], besides summaries: [Int: MonthSummary], months: [Month],
                       read: [Int: [SessionSpan]], query: HistoryQuery) async throws -> [Int: [SessionSpan]] {
        let summarised = Set(summaries.keys.flatMap { months[$0].segments })
        var parts: [Int: [SessionSpan]] = [:], unread: [Int] = []
        for index in segments.indices where !summarised.contains(index) {
            if let spans = read[index] { parts[index] = spans.filter(query.matches) } else { unread.append(index) }
        }
        if !unread.isEmpty {
            for (index, spans) in zip(unread, try await history.spans(in: unread.map { segments[$0] }, matching: query)) {
                parts[index] = spans
            }
        }
        return parts
    }

    /// The summaries that hold a session one of `ids` names: by halving
    /// each summary's list for a few ids, by one look per session for many
    /// (an undone import amends 100,000).
    private static func amending(_ summaries: [Int: MonthSummary], _ ids: Set<SessionID>) -> [Int] {
        let fingerprints = ids.map(MonthSummary.fingerprint(of:))
        guard fingerprints.count > 64 else {
            return summaries.filter { _, summary in fingerprints.contains(where: summary.holds) }.map(\.key)
        }
        let amended = Set(fingerprints)
        return summaries.filter { _, summary in summary.fingerprints.contains(where: amended.contains) }.map(\.key)
    }

    /// The summaries that hold a session one of `spans` (read beside them)
    /// also holds, or one whose id hashes alike: the few spans looked up
    /// by every id of the summaries, not the other way round.
    private static func holding(_ spans: some Collection<SessionSpan>, in summaries: [Int: MonthSummary]) -> Set<Int> {
        guard !spans.isEmpty else { return [] }
        var owners = FingerprintOwners(capacity: spans.count)
        for span in spans { _ = owners.insert(MonthSummary.fingerprint(of: span.id), owner: 0) }
        return Set(summaries.filter { _, summary in summary.fingerprints.contains { owners.owner(of: $0) != nil } }.keys)
    }

    /// What to keep: every summary still kept, less those of months no
    /// longer in history when the report saw all of it.
    private static func pruned(_ kept: [String: MonthSummary], listed months: [Month], query: HistoryQuery) -> [String: MonthSummary] {
        guard query.since == nil, query.until == nil else { return kept }
        let present = Set(months.map(\.key))
        return kept.filter { present.contains($0.key) }
    }
}
