import Domain

/// Answers the Group context's "what uses this group?" from the Session
/// context: the active session and the schedules.
public struct SessionGroupUsage: GroupUsageQuery {
    private let sessions: any SessionRepository
    private let schedules: any ScheduleRepository

    public init(sessions: any SessionRepository, schedules: any ScheduleRepository) {
        self.sessions = sessions
        self.schedules = schedules
    }

    public func usages(of group: GroupID) async throws -> [GroupUsage] {
        var usages: [GroupUsage] = []
        if let session = try await sessions.current(), session.isActive, session.groupId == group {
            usages.append(.activeSession(session.id.description))
        }
        usages += try await schedules.all().filter { $0.groupId == group }.map { .schedule($0.name) }
        return usages
    }
}
