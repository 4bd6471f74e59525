import FoundationEssentials
import RetimeShared

/// Ends the active session now: stopped, or completed when it was
/// open-ended (it had no end to fall short of). A strict session refuses until
/// its planned end, unless the passcode overrides it.
public struct StopSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let archiver: SessionArchiver
    private let active: ActiveSession
    private let override: any StrictOverride

    private let groups: any SessionGroupLookup
    /// The unlock method's say on an early stop; without it, the passcode's.
    private let unlock: StrictUnlock?

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, history: any SessionArchive, shields: any ShieldDirectory,
                events: SessionEventPublisher, active: ActiveSession, override: any StrictOverride,
                unlock: StrictUnlock? = nil) {
        self.sessions = sessions
        self.unlock = unlock
        self.groups = groups
        self.override = override
        self.archiver = SessionArchiver(sessions: sessions, history: history, shields: shields, events: events, groups: groups)
        self.active = active
    }

    /// Ends a running session that is not strict, as stopped at `instant`
    /// (a strict interval's start): a strict interval is not dodged by a
    /// manual session started just before it (semantics.md). Returns the
    /// session as it went to history; nil when none runs, or a strict one.
    public func preempt(at instant: Date) async throws -> Session? {
        try await preempt(at: instant, after: try await active.reconcile())
    }

    /// The same, in a pass that has reconciled already (the daemon's).
    public func preempt(at instant: Date, after reconciled: ActiveSession.Reconciled) async throws -> Session? {
        guard let current = try await active.current(after: reconciled), current.isActive, !current.strict else { return nil }
        let clock = active.clocks.clock(for: current)
        let end = min(max(active.clocks.onClock(of: current, instant), current.startedAt), clock.now())
        let ended = current.noticingSuspend(at: clock.now(), boot: clock.bootTime(), endingAt: end).ending(at: end, outcome: .stopped)
        return try await archiver.archive(current, as: ended) ? ended : nil
    }

    /// Returns the session as it went to history, with its group's name.
    /// `at`: when it ended, if earlier than now (`stop --at 10m ago`): not
    /// before its start or its last break, never later than now. `typed`:
    /// the characters typed back for `unlock typing:N`.
    public func execute(passcode: Passcode? = nil, at: Date? = nil, typed: Int? = nil) async throws -> SessionReceipt {
        let reconciled = try await active.reconcile()
        var authorized = false   // one passcode attempt, however often the swap is retried
        let ended = try await sessions.retryingActive(known: reconciled.slot) { current -> Session? in
            // A session started on a device whose clock disagrees with this
            // one's is stopped on that device's clock (`SessionClocks`).
            let clock = active.clocks.clock(for: current)
            let now = clock.now()
            let boot = clock.bootTime()
            if !authorized, current.strict, let until = current.endOnWallClock(at: now, boot: boot), !current.isExpired(at: now, boot: boot) {
                if let unlock {
                    if case .countdown(let counting) = try await unlock.admit(current, .stop, passcode: passcode, typed: typed, until: until) {
                        try await unlock.startCountdown(current, counting)
                        return nil   // the session changed meanwhile
                    }
                } else {
                    try await override.authorize("stop", passcode: passcode, otherwise: SessionError.strict(until: until))
                }
                authorized = true
            }
            // An open-ended session has no end to fall short of: `stop` is
            // how it ends as planned, so it is completed, as report counts it.
            let earliest = current.breaks.last.map { $0.end ?? $0.start } ?? current.startedAt
            // A plain stop ends it now, or at its start or last break where
            // a clock a little behind the one that wrote them reads earlier.
            let end = at.map { min($0, now) } ?? max(now, earliest)
            guard end >= earliest else {
                throw SessionError.invalidTimes(current.breaks.isEmpty ? "the end comes before the session's start"
                                                : "the end comes before the session's last break ended")
            }
            // The machine's sleep during the session, told by the clocks, is
            // recorded as it ends: suspended time never counts as focused.
            let ended = current.noticingSuspend(at: now, boot: boot, endingAt: end)
                .ending(at: end, outcome: current.plannedEnd.map { end >= $0 } ?? true ? .completed : .stopped)
            return try await archiver.archive(current, as: ended, passcode: passcode, typed: typed) ? ended : nil
        }
        return SessionReceipt(session: ended, groupName: try await groups.groupName(id: ended.groupId))
    }
}
