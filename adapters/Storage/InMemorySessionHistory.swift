import Domain
import Synchronization

/// Ended sessions held in memory, keyed by id so a repeated append is a no-op.
public final class InMemorySessionHistory: SessionHistory {
    private let sessions: Mutex<[SessionID: Session]>

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
        query.arrange(sessions.withLock { Array($0.values) })
    }
}
