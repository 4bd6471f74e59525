import RetimeGroup
import RetimeSession

/// `shield test`: whether the given targets, or else the active session's,
/// are blocked for the caller now, layer by layer. Without targets and
/// without an active session there is nothing to test: `notActive`.
public struct TestShieldUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let inspector: any ShieldInspector

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, inspector: any ShieldInspector) {
        self.sessions = sessions
        self.groups = groups
        self.inspector = inspector
    }

    /// `limit`: at most this many of the session's targets (doctor tests a few).
    public func execute(_ targets: [Target], limit: Int? = nil) async throws -> [TargetCheck] {
        guard targets.isEmpty else { return await inspector.check(targets) }
        guard let session = try await sessions.current(), session.isActive else { throw SessionError.notActive }
        return try await execute(of: session, limit: limit)
    }

    /// `session`'s targets, for a caller that has read the slot (doctor).
    public func execute(of session: Session, limit: Int? = nil) async throws -> [TargetCheck] {
        let all = session.blockTargets(try await groups.blockList(id: session.groupId)?.targets ?? [])
        return await inspector.check(Array(all.prefix(limit ?? all.count)))
    }
}
