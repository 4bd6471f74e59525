import FoundationEssentials
import RetimeShared

extension ActiveSession {
    /// Records the cycle's edges that have come (`Session.advancingCycle`)
    /// and makes the block follow the phase they leave: down for a break,
    /// up for work. Run by reconcile, so the daemon does it on the second
    /// and any command that notices later does it too. One process wins the
    /// compare-and-swap and moves the block; the others read the slot again.
    func followCycle(from current: Session, to advanced: Session, tolerating tolerate: Bool) async throws -> Reconciled {
        guard try await sessions.replace(current, with: advanced) else {
            return Reconciled(completed: nil, slot: .none, block: .none, tolerated: nil)
        }
        var found: (slot: Session??, block: ShieldState??) = (.some(advanced), .none)
        let tolerated = try await tolerating(tolerate, advanced) { found = try await alignPhase(of: advanced) }
        // Work that waits for its user is no phase begun: the work is, at their return.
        if let phase = advanced.cyclePhase, phase.kind != .waiting,
           phase.kind.isBreak != current.isPaused || phase.round != current.cyclePhase?.round || current.openWait != nil {
            logger.info("cycle phase started", metadata: ["session": "\(advanced.id)", "phase": "\(phase.kind.rawValue)",
                                                          "round": "\(phase.round)", "due": "\(Timestamp.format(phase.start))"])
            await events.phaseStarted(phase, of: advanced, at: phase.start, handledAt: clock.now())
        }
        return Reconciled(completed: nil, slot: found.slot, block: tolerated == nil ? found.block : .none, tolerated: tolerated)
    }

    /// Lowers the block for a break, raises it for work (`raiseIfDown`).
    /// A shield that will not lower it (the system service holding a strict
    /// block) leaves it up: a break missed is logged, never a block lost.
    func alignPhase(of session: Session) async throws -> (slot: Session??, block: ShieldState??) {
        guard session.blockIsLifted else { return try await raiseIfDown(session) }
        let shield = try shields.shield(of: session)
        if let refused = await Self.lowering(session.id, through: shield) {
            logger.warning("the cycle's break could not lower the block", metadata: ["session": "\(session.id)", "cause": "\(refused)"])
            return (.some(session), .none)
        }
        return (.some(session), .some(nil))
    }

    /// Lowers the block of `session`; returns why it could not.
    private static func lowering(_ session: SessionID, through shield: any Shield) async -> (any Error)? {
        do { try await shield.lower(for: session) } catch { return error }
        return nil
    }
}
