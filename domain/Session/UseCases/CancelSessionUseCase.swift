import FoundationEssentials
import RetimeShared

/// `cancel`: discards the running session, as Watson's and Timewarrior's
/// `cancel` do: its block is lifted and nothing of it goes to history. A
/// strict session refuses until its planned end, as `stop` does, unless
/// the passcode overrides it.
public struct CancelSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory
    private let active: ActiveSession
    private let override: any StrictOverride
    /// The unlock rule's say on an early cancel; without it, the passcode's.
    private let unlock: StrictUnlock?

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory,
                active: ActiveSession, override: any StrictOverride, unlock: StrictUnlock? = nil) {
        self.unlock = unlock
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.active = active
        self.override = override
    }

    /// Returns the session that was discarded, with its group's name, and
    /// when it was.
    public func execute(passcode: Passcode? = nil) async throws -> (receipt: SessionReceipt, at: Date) {
        let reconciled = try await active.reconcile()
        var authorized = false, at = active.clocks.clock.now()
        let cancelled = try await sessions.retryingActive(known: reconciled.slot) { current in
            let clock = active.clocks.clock(for: current), now = clock.now(), boot = clock.bootTime()
            at = now
            if !authorized, current.strict, let until = current.endOnWallClock(at: now, boot: boot), !current.isExpired(at: now, boot: boot) {
                if let unlock {
                    try await unlock.admitCancel(current, passcode: passcode, until: until)
                } else {
                    try await override.authorize("cancel", passcode: passcode, otherwise: SessionError.strict(until: until))
                }
                authorized = true
            }
            // The block first: a cancel that dies between the two steps
            // leaves a running session whose block the next command raises
            // again, never a block that no session owns.
            do { try await shields.shield(of: current).lower(for: current.id, passcode: passcode) } catch {
                throw SessionError.blockNotLifted((error as? SessionError)?.description ?? String(describing: error))
            }
            return try await sessions.replace(current, with: nil) ? current : nil
        }
        return (SessionReceipt(session: cancelled, groupName: try await groups.groupName(id: cancelled.groupId)), at)
    }
}
