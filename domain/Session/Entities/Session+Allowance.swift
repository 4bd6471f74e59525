import FoundationEssentials
import RetimeShared

/// A session's block lifted on request (`retime allow`): pure transitions,
/// so use cases compare-and-swap whole sessions as for a pause.
extension Session {
    /// The session with `allowance` running: its block comes down.
    public func allowing(_ allowance: RunningAllowance) throws(AllowanceError) -> Session {
        if let running = self.allowance { throw .alreadyRunning(until: running.plannedEnd) }
        var next = self
        next.allowance = allowance
        return next
    }

    /// The session with its allowance over: its block goes up again.
    public func endingAllowance() -> Session {
        var next = self
        next.allowance = nil
        return next
    }

    /// The allowance that has run out by `now`, if one has.
    public func allowanceRunOut(at now: Date, boot: BootTimeReading?) -> RunningAllowance? {
        guard isActive, let allowance, allowance.isOver(at: now, boot: boot) else { return nil }
        return allowance
    }

    /// When the running allowance runs out on the wall clock, as of `now`:
    /// the daemon wakes then. Nil when none runs.
    public func allowanceEnd(at now: Date, boot: BootTimeReading?) -> Date? {
        guard isActive, let allowance else { return nil }
        return allowance.end(at: now, boot: boot)
    }
}
