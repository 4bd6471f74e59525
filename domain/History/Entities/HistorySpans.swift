import FoundationEssentials
import RetimeSession

/// The segments that hold a query's sessions (`SessionHistory.segments`),
/// in the store's order, and whether a read keeps each id once across them.
public struct HistorySegments: Sendable, Equatable {
    public var segments: [HistorySegment]
    /// Whether a session recorded in more than one segment (two devices'
    /// folders, a sync tool's conflict copy) is read once.
    public var deduplicated: Bool

    public init(segments: [HistorySegment], deduplicated: Bool) {
        self.segments = segments
        self.deduplicated = deduplicated
    }
}

/// The amended sessions a query's spans are read with
/// (`SessionHistory.amendedSpans`).
public struct AmendedSpans: Sendable {
    /// Every amended id, deleted ones included: their own lines no longer count.
    public var ids: Set<SessionID>
    /// The amended sessions that match the query, as their amendments merge.
    public var spans: [SessionSpan]

    public init(ids: Set<SessionID> = [], spans: [SessionSpan] = []) {
        self.ids = ids
        self.spans = spans
    }
}

/// How the spans of a query are made of its segments' lines and the
/// amendments, the one way every history and every report does it, so a
/// report that sums part of history from summaries reads the rest exactly
/// as a report that reads it all.
public enum HistorySpans {
    /// Each segment's spans (in the order of `HistorySegments.segments`),
    /// each id once when `deduplicated` (of two records of a session, the
    /// one `keeps` picks, else the one read first), amended ids replaced by
    /// `amended.spans`.
    public static func resolve(_ parts: [[SessionSpan]], deduplicated: Bool, amended: AmendedSpans) -> [SessionSpan] {
        var spans: [SessionSpan] = []
        spans.reserveCapacity(parts.reduce(0) { $0 + $1.count } + amended.spans.count)
        if deduplicated {
            var index: [SessionID: Int] = [:]
            index.reserveCapacity(spans.capacity)
            for part in parts {
                for span in part {
                    if let earlier = index[span.id] {
                        if keeps(span, over: spans[earlier]) { spans[earlier] = span }
                    } else {
                        index[span.id] = spans.count
                        spans.append(span)
                    }
                }
            }
        } else {
            for part in parts { spans.append(contentsOf: part) }
        }
        guard !amended.ids.isEmpty else { return spans }
        spans.removeAll { amended.ids.contains($0.id) }
        spans.append(contentsOf: amended.spans)
        return spans
    }

    /// Of two records of one session that differ, the one every device
    /// keeps, as `HistoryQuery.keeps` picks between whole sessions: the
    /// earlier ending, then the outcome's name. Records alike in both keep
    /// the one read first.
    public static func keeps(_ span: SessionSpan, over other: SessionSpan) -> Bool {
        if span.endedAt != other.endedAt { return span.endedAt < other.endedAt }
        return span.outcome.rawValue < other.outcome.rawValue
    }
}
