import FoundationEssentials
import RetimeShared

extension ActiveSession {
    /// Ends an allowance that has run out (`Session.allowanceRunOut`) and
    /// raises the session's block again, unless a break keeps it down. Run
    /// by reconcile, so the daemon does it on the second and any command
    /// that notices later does it too. One process wins the
    /// compare-and-swap and raises the block; the others read the slot again.
    func endAllowance(_ ranOut: RunningAllowance, of current: Session, tolerating tolerate: Bool) async throws -> Reconciled {
        let ended = current.endingAllowance()
        guard try await sessions.replace(current, with: ended) else {
            return Reconciled(completed: nil, slot: .none, block: .none, tolerated: nil)
        }
        var found: (slot: Session??, block: ShieldState??) = (.some(ended), .none)
        let tolerated = try await tolerating(tolerate, ended) { found = try await raiseIfDown(ended) }
        let due = ranOut.ranOut(at: clock.now(), boot: clock.bootTime())
        logger.info("allowance ended", metadata: ["session": "\(ended.id)", "due": "\(Timestamp.format(due))"])
        events.record(TrackedEvent(name: "allowance-ended", at: clock.now(), properties: [
            "sessionId": .string(ended.id.description), "groupId": .string(ended.groupId.description), "due": .date(due),
            "cancelled": .bool(false),
        ]))
        return Reconciled(completed: nil, slot: found.slot, block: tolerated == nil ? found.block : .none, tolerated: tolerated)
    }
}
