import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tells other contexts what a running strict session forbids: weakening
/// its group (`GroupLock`) and changing the shield (`StrictSessionQuery`).
/// "Running" follows the same clocks as its end (`Session.isExpired`),
/// on the clock that judges the session here (`SessionClocks`): a machine
/// whose clock runs fast does not unlock another device's strict session
/// early. The end it gives is on this machine's clock.
public struct StrictSessionLock: GroupLock, StrictSessionQuery {
    private let sessions: any SessionRepository
    private let clocks: SessionClocks

    public init(sessions: any SessionRepository, clocks: SessionClocks) {
        self.sessions = sessions
        self.clocks = clocks
    }

    public func strictUntil() async throws -> Date? {
        guard let session = try await sessions.current(), session.isActive, session.strict else { return nil }
        let clock = clocks.clock(for: session), now = clock.now(), boot = clock.bootTime()
        guard !session.isExpired(at: now, boot: boot) else { return nil }
        return session.endOnWallClock(at: now, boot: boot).map { clocks.local($0, of: session) }
    }

    public func lockedUntil(_ group: GroupID) async throws -> Date? {
        guard let session = try await sessions.current(), session.groupId == group else { return nil }
        return try await strictUntil()
    }

    public func held(_ group: GroupID) async throws -> [Target] {
        guard let session = try await sessions.current(), session.isActive, session.groupId == group else { return [] }
        return session.heldTargets ?? []
    }

    public func released(_ targets: [Target], of group: GroupID) async throws {
        guard let session = try await sessions.current(), session.isActive, session.groupId == group,
              let next = session.releasing(targets) else { return }
        // A session changed meanwhile keeps holding them: a block stronger
        // than asked, never weaker; the next unblock releases them.
        _ = try await sessions.replace(session, with: next)
    }
}
