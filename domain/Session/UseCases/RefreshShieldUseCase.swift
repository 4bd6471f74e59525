import RetimeGroup

/// Makes the block match the session: raises the active session's block
/// again with its group's current targets (so targets added to or removed
/// from the group take effect at once), and lifts a block that no running
/// session owns (one a crash left up). The daemon runs it when it starts.
public struct RefreshShieldUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
    }

    /// Returns the targets now blocked, or nil if nothing is.
    @discardableResult
    public func execute() async throws -> [Target]? {
        let current = try await sessions.current()
        let shield = try current.map(shields.shield(of:)) ?? shields.configured()
        return try await ActiveSession.align(current, through: shield, groups: groups, .refreshing).raised
    }
}
