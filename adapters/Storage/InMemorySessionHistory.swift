import Domain
import FoundationEssentials
import Synchronization

/// Ended sessions held in memory, keyed by id so a repeated append is a no-op.
public final class InMemorySessionHistory: SessionHistory {
    private let sessions: Mutex<[SessionID: Session]>
    /// Every amendment, stamped by one hybrid clock as it was recorded.
    private let amendments = Mutex<(clock: HybridClock, stamped: [(amendment: HistoryAmendment, at: HybridTimestamp)])>(
        (HybridClock(device: "memory"), []))

    /// Per UTC month (its first instant), how many appends it has had: with
    /// `instance`, the version of that month's segment.
    private let appends: Mutex<[Date: Int]>
    private let instance = UUID()

    public init(_ initial: [Session] = []) {
        let held = Dictionary(initial.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        sessions = Mutex(held)
        appends = Mutex(held.values.reduce(into: [:]) { $0[Self.month(of: $1.startedAt).lowerBound, default: 0] += 1 })
    }

    public func append(_ session: Session) async throws {
        let added = sessions.withLock { all in
            guard all[session.id] == nil else { return false }
            all[session.id] = session
            return true
        }
        if added { appends.withLock { $0[Self.month(of: session.startedAt).lowerBound, default: 0] += 1 } }
    }

    @discardableResult
    public func append(contentsOf batch: [Session]) async throws -> Int {
        let added = sessions.withLock { all in
            batch.filter { session in
                guard all[session.id] == nil else { return false }
                all[session.id] = session
                return true
            }
        }
        appends.withLock { counts in
            for session in added { counts[Self.month(of: session.startedAt).lowerBound, default: 0] += 1 }
        }
        return added.count
    }

    /// One segment per UTC month of the sessions' starts, as the files
    /// keep them; each id is held once.
    public func segments(matching query: HistoryQuery) async throws -> HistorySegments {
        let counts = appends.withLock { $0 }
        let segments = counts.keys.sorted().compactMap { start -> HistorySegment? in
            let month = Self.month(of: start)
            if let since = query.since, month.upperBound <= since { return nil }
            if let until = query.until, month.lowerBound >= until { return nil }
            let (year, number, _) = Timestamp.civil(fromDays: Int64((start.timeIntervalSince1970 / 86_400).rounded(.down)))
            return HistorySegment(device: "memory", name: "\(year)-\(number)", month: month,
                                  version: "\(instance) \(counts[start] ?? 0)")
        }
        return HistorySegments(segments: segments, deduplicated: false)
    }

    /// Each month's sessions matching `query`, as appended.
    public func spans(in segments: [HistorySegment], matching query: HistoryQuery) async throws -> [[SessionSpan]] {
        let all = sessions.withLock { Array($0.values) }
        return segments.map { segment in
            all.filter { session in segment.month.map { $0.contains(session.startedAt) } ?? false && query.matches(session) }
                .compactMap { SessionSpan($0, withTags: query.spansWithTags) }
        }
    }

    public func amendedSpans(matching query: HistoryQuery) async throws -> AmendedSpans {
        let merged = AmendedSessions(amendments.withLock { $0.stamped })
        return AmendedSpans(ids: merged.ids, spans: merged.resolved().values.compactMap { session in
            query.matches(session) ? SessionSpan(session, withTags: query.spansWithTags) : nil
        })
    }

    /// The UTC month `date` falls in.
    static func month(of date: Date) -> Range<Date> {
        let (year, month, _) = Timestamp.civil(fromDays: Int64((date.timeIntervalSince1970 / 86_400).rounded(.down)))
        let (nextYear, next) = month == 12 ? (year + 1, Int64(1)) : (year, month + 1)
        return Date(timeIntervalSince1970: Double(Timestamp.days(fromCivil: year, month, 1) * 86_400))
            ..< Date(timeIntervalSince1970: Double(Timestamp.days(fromCivil: nextYear, next, 1) * 86_400))
    }

    public func holds(_ session: Session) async throws -> Bool {
        sessions.withLock { $0[session.id] != nil }
    }

    public func holds(id: SessionID) async throws -> Bool {
        sessions.withLock { $0[id] != nil }
    }

    public func sessions(matching query: HistoryQuery) async throws -> [Session] {
        var all = query
        all.limit = nil
        let merged = AmendedSessions(amendments.withLock { $0.stamped })
        var arranged = merged.apply(to: all.arrange(sessions.withLock { Array($0.values) }), query: all)
        if let limit = query.limit { arranged = Array(arranged.prefix(max(0, limit))) }
        return arranged
    }

    public func amend(_ amendment: HistoryAmendment) async throws {
        try await amend(contentsOf: [amendment])
    }

    public func amend(contentsOf batch: [HistoryAmendment]) async throws {
        guard let first = batch.first else { return }
        amendments.withLock { held in
            let at = held.clock.tick(now: first.revisedAt)
            held.stamped += batch.map { ($0, at) }
        }
    }
}
