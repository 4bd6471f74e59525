import FoundationEssentials
import RetimeGroup
import RetimeSession
import RetimeShared

/// `log`: the sessions of history that a query picks, newest first, with
/// the names their groups ran under (or have now, for sessions recorded
/// before sessions kept it) and the instant they were read at.
public struct SessionLogUseCase: Sendable {
    /// What `log` prints.
    public struct Log: Sendable {
        public var sessions: [Session]
        /// The groups' names now, by id.
        public var groupNames: [GroupID: String]
        /// When the log was read: a running session's times are up to it.
        public var readAt: Date

        /// The name the session's group had when it ran (semantics.md:
        /// history keeps it), else, for a session recorded before sessions
        /// kept it, the group's name now.
        public func groupName(of session: Session) -> String? {
            session.groupName ?? groupNames[session.groupId]
        }

        /// The group's name now, where it is not the name the session ran
        /// under (renamed since), else nil: shown beside it.
        public func currentGroupName(of session: Session) -> String? {
            guard let then = session.groupName, let now = groupNames[session.groupId], then != now else { return nil }
            return now
        }

        /// Whether the session's group has been deleted since.
        public func groupDeleted(_ session: Session) -> Bool { groupNames[session.groupId] == nil }
    }

    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let clock: any Clock

    public init(history: any SessionHistory, groups: any SessionGroupLookup, clock: any Clock) {
        self.history = history
        self.groups = groups
        self.clock = clock
    }

    /// `groupNamed` keeps one group's sessions, by its name now or a name it
    /// ran under: `SessionError.groupNotFound` when neither is.
    public func execute(since: Date? = nil, until: Date? = nil, groupNamed: String? = nil, tag: String? = nil,
                        limit: Int? = nil) async throws -> Log {
        let groupId = try await HistoryGroups(groups: groups, history: history).id(named: groupNamed)
        let sessions = try await history.sessions(matching: HistoryQuery(since: since, until: until, groupId: groupId, tag: tag, limit: limit))
        // Each session is shown under its group's name now (one read of the groups).
        let names = try await groups.groupNames()
        return Log(sessions: sessions, groupNames: names, readAt: clock.now())
    }
}
