import FoundationEssentials
import RetimeShared

extension Session {
    /// The session with `request`'s countdown running.
    public func requestingUnlock(_ request: UnlockRequest) -> Session {
        var next = self
        next.unlockRequest = request
        return next
    }

    /// The session with its countdown withdrawn.
    public func withdrawingUnlock() -> Session {
        var next = self
        next.unlockRequest = nil
        return next
    }

    /// The countdown that has run out at `now`, if any, while the session is
    /// still running and its own time is not up.
    public func dueUnlock(at now: Date, boot: BootTimeReading?) -> UnlockRequest? {
        guard isActive, let unlockRequest, unlockRequest.isOver(at: now, boot: boot) else { return nil }
        return unlockRequest
    }
}
