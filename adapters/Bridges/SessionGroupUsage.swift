import Domain

/// Answers the Group context's "what uses this group?" from the Session
/// context: the active session and the schedules as they stand now (one
/// whose delayed removal has taken effect uses nothing, stored or not).
public struct SessionGroupUsage: GroupUsageQuery {
    private let sessions: any SessionRepository
    private let schedules: any ScheduleRepository
    private let clock: any Clock

    public init(sessions: any SessionRepository, schedules: any ScheduleRepository, clock: any Clock) {
        self.sessions = sessions
        self.schedules = schedules
        self.clock = clock
    }

    public func usages(of group: GroupID) async throws -> [GroupUsage] {
        var usages: [GroupUsage] = []
        if let session = try await sessions.current(), session.isActive, session.groupId == group {
            usages.append(.activeSession(session.id.description))
        }
        usages += Schedule.standing(try await schedules.all(), at: clock.now()).filter { $0.groupId == group }.map { .schedule($0.name) }
        return usages
    }
}
