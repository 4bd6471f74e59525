import Foundation

/// The active session seen at one instant: how far along it is.
public struct SessionStatus: Sendable, Hashable {
    public var session: Session
    public var at: Date
    public var elapsed: TimeInterval
    public var focused: TimeInterval
    /// Nil for an open-ended session.
    public var remaining: TimeInterval?

    public init(session: Session, at now: Date) {
        self.session = session
        self.at = now
        elapsed = session.elapsed(at: now)
        focused = session.focused(at: now)
        remaining = session.remaining(at: now)
    }

    /// From 0 to 1 for a session with a planned end; nil otherwise.
    public var progress: Double? {
        guard let plannedEnd = session.plannedEnd else { return nil }
        let total = plannedEnd.timeIntervalSince(session.startedAt)
        guard total > 0 else { return 1 }
        return min(1, max(0, elapsed / total))
    }
}
