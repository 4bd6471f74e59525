import FoundationEssentials
import RetimeGroup
import RetimeSession

/// The record of ended sessions. Append-only: adding one never rewrites the
/// others, and appending a session whose id is already recorded changes
/// nothing (so a retried or raced archive leaves one entry).
///
/// The contract every adapter keeps is `SessionHistoryContract`. Ending a
/// session needs only `append`, the Session context's `SessionArchive`.
public protocol SessionHistory: SessionArchive {
    /// The spans of the ended sessions matching `query` (its limit and
    /// order aside), each id once, in no particular order: what reports read.
    /// Adapters may decode only these fields; the default maps `sessions`.
    func spans(matching query: HistoryQuery) async throws -> [SessionSpan]
    /// Records many ended sessions at once (an import), each id once: ids
    /// already recorded, or repeated in `sessions`, are skipped. Returns how
    /// many it recorded: of two processes importing the same data at once,
    /// one says all and the other none.
    @discardableResult
    func append(contentsOf sessions: [Session]) async throws -> Int
    /// Ended sessions matching `query`, each id once, newest start first,
    /// as amended: each id as its latest revision, deleted ones left out.
    func sessions(matching query: HistoryQuery) async throws -> [Session]
    /// Records an amendment (an edit or a deletion) of an ended session;
    /// the session's own record is never rewritten.
    func amend(_ amendment: HistoryAmendment) async throws
    /// Records several amendments as one: a reader sees all of them or
    /// none, even when the process dies while writing (`undo` restores
    /// every session of an import run at once).
    func amend(contentsOf amendments: [HistoryAmendment]) async throws
    /// The segments (files) that may hold sessions matching `query`'s range,
    /// in a fixed order, for reports that sum whole segments from summaries.
    func segments(matching query: HistoryQuery) async throws -> HistorySegments
    /// Each segment's spans that match `query`, as its lines record them:
    /// not amended, ids not kept once across segments. `HistorySpans.resolve`
    /// makes them, with `amendedSpans`, what `spans(matching:)` returns.
    func spans(in segments: [HistorySegment], matching query: HistoryQuery) async throws -> [[SessionSpan]]
    /// The amended sessions, for `HistorySpans.resolve`.
    func amendedSpans(matching query: HistoryQuery) async throws -> AmendedSpans
}

extension SessionHistory {
    public func spans(matching query: HistoryQuery) async throws -> [SessionSpan] {
        var all = query
        all.limit = nil
        return try await sessions(matching: all).compactMap { SessionSpan($0, withTags: query.spansWithTags) }
    }

    /// A history that is not kept in segments is one, never summarised.
    public func segments(matching query: HistoryQuery) async throws -> HistorySegments {
        HistorySegments(segments: [HistorySegment(device: "", name: "", month: nil, version: nil)], deduplicated: false)
    }

    /// Of a history that is one segment: its spans, amended already.
    public func spans(in segments: [HistorySegment], matching query: HistoryQuery) async throws -> [[SessionSpan]] {
        var parts: [[SessionSpan]] = []
        for _ in segments { parts.append(try await spans(matching: query)) }
        return parts
    }

    /// Of a history that is one segment: none, its spans are amended already.
    public func amendedSpans(matching query: HistoryQuery) async throws -> AmendedSpans { AmendedSpans() }

    /// `spans(matching:)` made of the segments and amendments, as a report
    /// that sums some segments from summaries reads the others.
    public func segmentedSpans(matching query: HistoryQuery) async throws -> [SessionSpan] {
        let segments = try await segments(matching: query)
        return HistorySpans.resolve(try await spans(in: segments.segments, matching: query), deduplicated: segments.deduplicated,
                                    amended: try await amendedSpans(matching: query))
    }
}

/// Which ended sessions to read.
public struct HistoryQuery: Sendable, Hashable {
    /// Sessions that started at or after this instant.
    public var since: Date?
    /// Sessions that started before this instant (exclusive).
    public var until: Date?
    public var groupId: GroupID?
    /// Only sessions with this tag.
    public var tag: String?
    /// At most this many, the newest.
    public var limit: Int?
    /// Whether the spans read must carry their tags (a report by tag);
    /// reading them costs a string each, so spans leave them out otherwise.
    public var spansWithTags: Bool

    public init(since: Date? = nil, until: Date? = nil, groupId: GroupID? = nil, tag: String? = nil, limit: Int? = nil,
                spansWithTags: Bool = false) {
        self.since = since
        self.until = until
        self.groupId = groupId
        self.tag = tag
        self.limit = limit
        self.spansWithTags = spansWithTags || tag != nil
    }

    /// Every ended session.
    public static let all = HistoryQuery()

    /// Whether `session` passes the filters (the limit aside).
    public func matches(_ session: Session) -> Bool {
        matches(startedAt: session.startedAt, groupId: session.groupId) && (tag.map(session.tags.contains) ?? true)
    }

    /// Whether a span passes the filters (its tags read when a tag is asked for).
    public func matches(_ span: SessionSpan) -> Bool {
        matches(startedAt: span.startedAt, groupId: span.groupId) && (tag.map(span.tags.contains) ?? true)
    }

    /// Whether a session that started then, in that group, passes the filters.
    public func matches(startedAt: Date, groupId: GroupID) -> Bool {
        if let wanted = self.groupId, groupId != wanted { return false }
        return matches(startedAt: startedAt)
    }

    /// Whether a session that started then is in the range.
    public func matches(startedAt: Date) -> Bool {
        if let since, startedAt < since { return false }
        if let until, startedAt >= until { return false }
        return true
    }

    /// Filters, orders and limits sessions as the port promises.
    public func arrange(_ sessions: [Session]) -> [Session] {
        order(sessions.filter(matches))
    }

    /// Orders and limits sessions that already match: newest start first,
    /// ties broken by id so the order is stable, and each id once (copies of
    /// a session, as a synced folder may hold, sort next to each other; of
    /// copies that differ, the one `Self.keeps`, on every device alike).
    /// Sorts small keys rather than whole sessions, which matters for history
    /// readers with 100,000 of them.
    public func order(_ sessions: [Session]) -> [Session] {
        var keys = sessions.indices.map { (start: sessions[$0].startedAt.timeIntervalSinceReferenceDate, index: $0) }
        keys.sort { lhs, rhs in
            if lhs.start != rhs.start { return lhs.start > rhs.start }
            let left = sessions[lhs.index], right = sessions[rhs.index]
            if left.id != right.id { return Self.precedes(left.id, right.id) }
            return Self.keeps(left, over: right)
        }
        var result: [Session] = []
        result.reserveCapacity(limit.map { min(max(0, $0), keys.count) } ?? keys.count)
        for key in keys {
            if let limit, result.count >= limit { break }
            if let last = result.last, last.id == sessions[key.index].id { continue }
            result.append(sessions[key.index])
        }
        return result
    }

    /// Of two records of one session that differ (two devices each ended
    /// it, one seeing it run out, the other a session started elsewhere at
    /// the same time), the one every device keeps, whichever file it reads
    /// first: the earlier ending (an ending is final: the first one holds),
    /// then the outcome's name, then the planned end.
    public static func keeps(_ session: Session, over other: Session) -> Bool {
        let end = session.endedAt ?? .distantFuture, otherEnd = other.endedAt ?? .distantFuture
        if end != otherEnd { return end < otherEnd }
        if session.outcome != other.outcome { return session.outcome.rawValue < other.outcome.rawValue }
        return (session.plannedEnd ?? .distantFuture) < (other.plannedEnd ?? .distantFuture)
    }

    /// Byte order of the ids, which is the order of their text forms: the
    /// tie-break between sessions that started at the same instant.
    public static func precedes(_ lhs: SessionID, _ rhs: SessionID) -> Bool {
        withUnsafeBytes(of: lhs.rawValue.uuid) { left in
            withUnsafeBytes(of: rhs.rawValue.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}
