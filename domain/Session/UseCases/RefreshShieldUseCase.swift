import RetimeGroup

/// Makes the block match the session: raises the active session's block
/// again with its group's current targets (so targets added to or removed
/// from the group take effect at once), and lifts a block that no running
/// session owns (one a crash left up). The daemon runs it when it starts.
public struct RefreshShieldUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory
    /// History: a session it holds has ended (elsewhere, the slot here not
    /// yet showing it), and its block is not raised again.
    private let history: any SessionArchive

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory, history: any SessionArchive) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.history = history
    }

    /// Returns the targets now blocked, or nil if nothing is.
    @discardableResult
    public func execute() async throws -> [Target]? {
        let current = try await sessions.current()
        // An empty slot read without another device's log that does not
        // read may miss a session running there: its block stays.
        if current == nil, try await sessions.leavesOut() { return nil }
        if let current, current.isActive, try await history.holds(current) { return nil }
        let shield = try current.map(shields.shield(of:)) ?? shields.configured()
        return try await ActiveSession.align(current, through: shield, groups: groups, .refreshing).raised
    }
}
