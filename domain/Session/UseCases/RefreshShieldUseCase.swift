/// Raises the active session's block again with its group's current
/// targets, so that targets added to or removed from the group while a
/// session runs take effect at once. Does nothing during a break or when no
/// session is active.
public struct RefreshShieldUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shield: any Shield

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shield: any Shield) {
        self.sessions = sessions
        self.groups = groups
        self.shield = shield
    }

    /// Returns the targets now blocked, or nil if nothing was raised.
    @discardableResult
    public func execute() async throws -> [Target]? {
        guard let session = try await sessions.current(), session.isActive, !session.isPaused else { return nil }
        let targets = try await groups.blockList(id: session.groupId)?.targets ?? []
        try await shield.guarded { try await $0.raise(targets, for: session.id) }
        return targets
    }
}
