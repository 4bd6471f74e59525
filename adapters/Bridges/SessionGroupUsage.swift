import Domain

/// Answers the Group context's "what uses this group?" from the Session
/// context: the active session (schedules join when they exist).
public struct SessionGroupUsage: GroupUsageQuery {
    private let sessions: any SessionRepository

    public init(sessions: any SessionRepository) {
        self.sessions = sessions
    }

    public func usages(of group: GroupID) async throws -> [GroupUsage] {
        guard let session = try await sessions.current(), session.isActive, session.groupId == group else { return [] }
        return [.activeSession(session.id.description)]
    }
}
