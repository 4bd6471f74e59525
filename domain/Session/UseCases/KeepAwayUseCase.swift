import FoundationEssentials
import RetimeShared

/// `retime keep-away`: the user was thinking, not away. The running
/// session's last away stretch (or every one) counts as focused again.
public struct KeepAwayUseCase: Sendable {
    private let sessions: any SessionRepository
    private let clock: any Clock
    private let active: ActiveSession

    public init(sessions: any SessionRepository, clock: any Clock, active: ActiveSession) {
        self.sessions = sessions
        self.clock = clock
        self.active = active
    }

    /// What `keep-away` changed: the session as it is now, and how much
    /// away time it kept as focused.
    public struct Kept: Sendable {
        public let session: Session
        public let seconds: TimeInterval
    }

    /// Throws `notActive` with no session, `nothingAway` when it has no
    /// away stretch to keep.
    public func execute(all: Bool) async throws -> Kept {
        let reconciled = try await active.reconcile()
        return try await sessions.retryingActive(known: reconciled.slot) { current -> Kept? in
            let (next, seconds) = try current.keepingAway(all: all)
            return try await sessions.replace(current, with: next) ? Kept(session: next, seconds: seconds) : nil
        }
    }
}

extension KeepAwayUseCase: ReconcilesSession {}
