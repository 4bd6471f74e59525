import RetimeShared

/// Starts a break: the block is lifted, the planned end stays where it was.
/// Strict sessions take no breaks, unless the passcode overrides it.
public struct PauseSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let shields: any ShieldDirectory
    private let events: SessionEventPublisher
    private let active: ActiveSession
    private let override: any StrictOverride

    private let groups: any SessionGroupLookup
    /// The unlock method's say on an early pause; without it, the passcode's.
    private let unlock: StrictUnlock?

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory,
                events: SessionEventPublisher, active: ActiveSession, override: any StrictOverride,
                unlock: StrictUnlock? = nil) {
        self.sessions = sessions
        self.unlock = unlock
        self.groups = groups
        self.override = override
        self.shields = shields
        self.events = events
        self.active = active
    }

    /// Returns the paused session, with its group's name.
    /// `typed`: the characters typed back for `unlock typing:N`.
    public func execute(passcode: Passcode? = nil, typed: Int? = nil) async throws -> SessionReceipt {
        let reconciled = try await active.reconcile()
        var authorized = false   // one passcode attempt, however often the swap is retried
        let (running, paused) = try await sessions.retryingActive(known: reconciled.slot) { current -> (Session, Session)? in
            guard current.cycle == nil else { throw SessionError.cycleTakesItsBreaks }
            // A break already open: no countdown or passcode is asked for nothing.
            guard !current.isPaused else { throw SessionError.alreadyPaused }
            let clock = active.clocks.clock(for: current)
            if !authorized, current.strict, let until = current.endOnWallClock(at: clock.now(), boot: clock.bootTime()) {
                if let unlock {
                    if case .countdown(let counting) = try await unlock.admit(current, .pause, passcode: passcode, typed: typed, until: until) {
                        try await unlock.startCountdown(current, counting)
                        return nil   // the session changed meanwhile
                    }
                } else {
                    try await override.authorize("pause", passcode: passcode, otherwise: SessionError.strict(until: until))
                }
                authorized = true
            }
            let next = try current.pausing(at: clock.now())
            return try await sessions.replace(current, with: next) ? (current, next) : nil
        }
        let shield: any Shield
        do {
            shield = try shields.shield(of: paused)
            try await shield.guarded { try await $0.lower(for: paused.id, passcode: passcode, typed: typed) }
        } catch {
            // A break whose block is still up is no break: withdraw it (if
            // nobody changed the session since), as start withdraws a session
            // it could not block, and say why.
            _ = try? await sessions.replace(paused, with: running)
            throw error
        }
        await events.session(.sessionPaused, paused, at: paused.breaks.last?.start ?? active.clocks.clock(for: paused).now())
        return SessionReceipt(session: paused, groupName: try await groups.groupName(id: paused.groupId),
                              reach: await shield.reach(askingAboutApps: false))
    }
}
