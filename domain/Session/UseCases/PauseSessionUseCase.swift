import RetimeShared

/// Starts a break: the block is lifted, the planned end stays where it was.
/// Strict sessions take no breaks, unless the passcode overrides it.
public struct PauseSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let shields: any ShieldDirectory
    private let clock: any Clock
    private let events: SessionEventPublisher
    private let reconcile: ReconcileSessionUseCase
    private let override: any StrictOverride

    private let groups: any SessionGroupLookup

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory, clock: any Clock,
                events: SessionEventPublisher, reconcile: ReconcileSessionUseCase, override: any StrictOverride) {
        self.sessions = sessions
        self.groups = groups
        self.override = override
        self.shields = shields
        self.clock = clock
        self.events = events
        self.reconcile = reconcile
    }

    /// Returns the paused session, with its group's name.
    public func execute(passcode: Passcode? = nil) async throws -> SessionReceipt {
        let reconciled = try await reconcile.active.reconcile()
        var authorized = false   // one passcode attempt, however often the swap is retried
        let (running, paused) = try await sessions.retryingActive(known: reconciled.slot) { current -> (Session, Session)? in
            guard current.cycle == nil else { throw SessionError.cycleTakesItsBreaks }
            if !authorized, current.strict, let until = current.endOnWallClock(at: clock.now(), boot: clock.bootTime()) {
                try await override.authorize("pause", passcode: passcode, otherwise: SessionError.strict(until: until))
                authorized = true
            }
            let next = try current.pausing(at: clock.now())
            return try await sessions.replace(current, with: next) ? (current, next) : nil
        }
        let shield: any Shield
        do {
            shield = try shields.shield(of: paused)
            try await shield.guarded { try await $0.lower(for: paused.id, passcode: passcode) }
        } catch {
            // A break whose block is still up is no break: withdraw it (if
            // nobody changed the session since), as start withdraws a session
            // it could not block, and say why.
            _ = try? await sessions.replace(paused, with: running)
            throw error
        }
        await events.session(.sessionPaused, paused, at: paused.breaks.last?.start ?? clock.now())
        return SessionReceipt(session: paused, groupName: try await groups.groupName(id: paused.groupId),
                              reach: await shield.reach(askingAboutApps: false))
    }
}
