import Domain
import Synchronization

/// Ended sessions held in memory, keyed by id so a repeated append is a no-op.
public final class InMemorySessionHistory: SessionHistory {
    private let sessions: Mutex<[SessionID: Session]>
    private let amendments = Mutex<[(amendment: HistoryAmendment, device: String)]>([])

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

    public func sessions(matching query: HistoryQuery) async throws -> [Session] {
        var all = query
        all.limit = nil
        let winners = HistoryAmendment.winners(amendments.withLock { $0 })
        var arranged = HistoryAmendment.apply(winners, to: all.arrange(sessions.withLock { Array($0.values) }), query: all)
        if let limit = query.limit { arranged = Array(arranged.prefix(max(0, limit))) }
        return arranged
    }

    public func amend(_ amendment: HistoryAmendment) async throws {
        amendments.withLock { $0.append((amendment, "memory")) }
    }

    public func amend(contentsOf batch: [HistoryAmendment]) async throws {
        amendments.withLock { $0 += batch.map { ($0, "memory") } }
    }
}
