import FoundationEssentials
import RetimeShared

/// `retime next`: ends the cycle's phase now and begins the next one
/// (`Session.passingPhase`): from a break into work always, from work into
/// a break unless the cycle is strict and fixed. The block follows.
public struct NextPhaseUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let active: ActiveSession

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, active: ActiveSession) {
        self.sessions = sessions
        self.groups = groups
        self.active = active
    }

    /// Returns the session in its new phase, with its group's name.
    public func execute() async throws -> SessionReceipt {
        let reconciled = try await active.reconcile()
        let (before, after) = try await sessions.retryingActive(known: reconciled.slot) { current -> (Session, Session)? in
            let clock = active.clocks.clock(for: current)
            let next = try current.passingPhase(at: clock.now(), boot: clock.bootTime())
            return try await sessions.replace(current, with: next) ? (current, next) : nil
        }
        do {
            if after.blockIsLifted {
                let shield = try active.shields.shield(of: after)
                try await shield.guarded { try await $0.lower(for: after.id) }
            } else {
                _ = try await active.raiseIfDown(after)
            }
        } catch {
            // A phase the block does not follow is no phase: withdraw it (if
            // nobody changed the session since), and say why.
            _ = try? await sessions.replace(after, with: before)
            throw error
        }
        if let phase = after.cyclePhase { await active.events.phaseStarted(phase, of: after, at: phase.start) }
        return SessionReceipt(session: after, groupName: try await groups.groupName(id: after.groupId))
    }
}

extension NextPhaseUseCase: ReconcilesSession {}
