import FoundationEssentials
import RetimeShared

extension ActiveSession {
    /// Carries out a countdown to end or pause a strict session early that
    /// has run out (`unlock delay:`): the session stops, or a break opens, at
    /// the countdown's end, by whichever process notices first, as a
    /// session's completion is (the daemon on time, any command later).
    func carryOut(_ due: UnlockRequest, of current: Session, toleratingStuckBlock: Bool) async throws -> Reconciled {
        let instant = due.carriedOut(at: clock.now(), boot: clock.bootTime())
        archiver.events.record(TrackedEvent(name: "unlock-elapsed", at: clock.now(), properties: [
            "sessionId": .string(current.id.description), "action": .string(due.action.rawValue), "due": .date(instant),
        ]))
        switch due.action {
        case .stop:
            let ended = current.ending(at: instant, outcome: .stopped)
            var archived = true, emptied = false
            let tolerated = try await tolerating(toleratingStuckBlock, ended) {
                (archived, emptied) = try await archiver.archiving(current, as: ended)
            }
            guard archived else { return Reconciled(completed: nil, slot: .none, block: .none, tolerated: tolerated) }
            logger.info("session stopped by its unlock countdown", metadata: ["session": "\(ended.id)"])
            return Reconciled(completed: nil, slot: emptied ? .some(nil) : tolerated == nil ? .none : .some(ended), block: .none,
                              tolerated: tolerated)
        case .pause where current.isPaused:
            // A break is open already (a passcode opened it meanwhile): the
            // countdown has nothing left to do.
            let settled = current.withdrawingUnlock()
            let replaced = try await sessions.replace(current, with: settled)
            return Reconciled(completed: nil, slot: replaced ? .some(settled) : .none, block: .none, tolerated: nil)
        case .pause:
            let paused = try current.pausing(at: instant)
            guard try await sessions.replace(current, with: paused) else {
                return Reconciled(completed: nil, slot: .none, block: .none, tolerated: nil)
            }
            let tolerated = try await tolerating(toleratingStuckBlock, paused) {
                try await shields.shield(of: paused).guarded { try await $0.lower(for: paused.id, passcode: nil) }
            }
            await archiver.events.session(.sessionPaused, paused, at: instant)
            logger.info("session paused by its unlock countdown", metadata: ["session": "\(paused.id)"])
            return Reconciled(completed: nil, slot: .some(paused), block: .none, tolerated: tolerated)
        }
    }
}
