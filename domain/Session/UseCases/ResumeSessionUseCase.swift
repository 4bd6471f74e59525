import RetimeShared

/// Ends a break: the block goes up again with the group's current targets.
public struct ResumeSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory
    private let events: SessionEventPublisher
    private let active: ActiveSession

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, shields: any ShieldDirectory,
                events: SessionEventPublisher, active: ActiveSession) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.events = events
        self.active = active
    }

    /// Returns the resumed session, with its group's name and the targets
    /// blocked again.
    public func execute() async throws -> SessionReceipt {
        let reconciled = try await active.reconcile()
        let (paused, resumed) = try await sessions.retryingActive(known: reconciled.slot) { current -> (Session, Session)? in
            guard current.cycle == nil else { throw SessionError.cycleTakesItsBreaks }
            let next = try current.resuming(at: active.clocks.clock(for: current).now())
            return try await sessions.replace(current, with: next) ? (current, next) : nil
        }
        let group = try await groups.blockList(id: resumed.groupId)
        let targets = resumed.blockTargets(group?.targets ?? [])
        let shield: any Shield
        do {
            shield = try shields.shield(of: resumed)
            // An allowance running keeps the block down to its end.
            if resumed.allowance == nil { try await shield.guarded { try await $0.raise(targets, for: resumed) } }
        } catch {
            // Not blocked, so not resumed: the break goes on, and the error says why.
            _ = try? await sessions.replace(resumed, with: paused)
            throw error
        }
        await events.session(.sessionResumed, resumed, at: resumed.breaks.last?.end ?? active.clocks.clock(for: resumed).now(), group: group)
        return SessionReceipt(session: resumed, groupName: group?.name, targets: targets, reach: await shield.reach(askingAboutApps: false))
    }
}
