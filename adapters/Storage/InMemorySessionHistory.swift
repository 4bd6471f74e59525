import Domain
import Synchronization

/// Ended sessions held in memory, keyed by id so a repeated append is a no-op.
public final class InMemorySessionHistory: SessionHistory {
    private let sessions: Mutex<[SessionID: Session]>
    /// Every amendment, stamped by one hybrid clock as it was recorded.
    private let amendments = Mutex<(clock: HybridClock, stamped: [(amendment: HistoryAmendment, at: HybridTimestamp)])>(
        (HybridClock(device: "memory"), []))

    public init(_ initial: [Session] = []) {
        sessions = Mutex(Dictionary(initial.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    public func append(_ session: Session) async throws {
        sessions.withLock { all in
            if all[session.id] == nil { all[session.id] = session }
        }
    }

    @discardableResult
    public func append(contentsOf batch: [Session]) async throws -> Int {
        sessions.withLock { all in
            batch.reduce(0) { recorded, session in
                guard all[session.id] == nil else { return recorded }
                all[session.id] = session
                return recorded + 1
            }
        }
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
