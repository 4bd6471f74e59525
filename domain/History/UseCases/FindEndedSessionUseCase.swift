import FoundationEssentials
import RetimeSession
import RetimeShared

/// Finds the ended session a user names (`SessionReference`).
public struct FindEndedSessionUseCase: Sendable {
    private let history: any SessionHistory

    public init(history: any SessionHistory) {
        self.history = history
    }

    public func execute(_ reference: SessionReference) async throws -> Session {
        switch reference {
        case .recent(let number):
            let newest = try await history.sessions(matching: HistoryQuery(limit: number))
            guard newest.count == number else { throw SessionError.sessionNotFound(reference.description) }
            return newest[number - 1]
        case .id(let id):
            guard let found = try await history.sessions(matching: .all).first(where: { $0.id == id }) else {
                throw SessionError.sessionNotFound(reference.description)
            }
            return found
        case .prefix(let prefix):
            let matches = try await history.sessions(matching: .all).filter { $0.id.description.hasPrefix(prefix) }
            guard let first = matches.first else { throw SessionError.sessionNotFound(prefix) }
            guard matches.count == 1 else { throw SessionError.ambiguousSession(prefix, matches: matches.count) }
            return first
        }
    }
}
