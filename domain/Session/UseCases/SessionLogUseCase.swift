import Foundation

/// `log`: the sessions of history that a query picks, newest first, with
/// the names their groups ran under (or have now, for sessions recorded
/// before sessions kept it) and the instant they were read at.
public struct SessionLogUseCase: Sendable {
    /// What `log` prints.
    public struct Log: Sendable {
        public var sessions: [Session]
        /// The names of the groups, by id, for sessions that do not carry one.
        public var groupNames: [GroupID: String]
        /// When the log was read: a running session's times are up to it.
        public var readAt: Date

        /// The name the session's group had when it ran, else its name now.
        public func groupName(of session: Session) -> String? {
            session.groupName ?? groupNames[session.groupId]
        }
    }

    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let clock: any Clock

    public init(history: any SessionHistory, groups: any SessionGroupLookup, clock: any Clock) {
        self.history = history
        self.groups = groups
        self.clock = clock
    }

    /// `groupNamed` keeps one group's sessions: `SessionError.groupNotFound`
    /// when no group has that name.
    public func execute(since: Date? = nil, until: Date? = nil, groupNamed: String? = nil, tag: String? = nil,
                        limit: Int? = nil) async throws -> Log {
        let groupId = try await groups.id(named: groupNamed)
        let sessions = try await history.sessions(matching: HistoryQuery(since: since, until: until, groupId: groupId, tag: tag, limit: limit))
        // Names are read only when a session does not carry its own.
        let names = sessions.contains { $0.groupName == nil } ? try await groups.groupNames() : [:]
        return Log(sessions: sessions, groupNames: names, readAt: clock.now())
    }
}
