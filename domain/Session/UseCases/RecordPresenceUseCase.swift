import FoundationEssentials
import RetimeShared

/// Records what the machine says about its user in the running session
/// (the daemon, from `PresenceSignals`): an away stretch opens when the
/// user goes idle (since input stopped), locks the screen or the machine
/// sleeps, and closes on return; a stretch shorter than `threshold` is
/// dropped. The block is not touched: it stays up while the user is away.
public struct RecordPresenceUseCase: Sendable {
    private let sessions: any SessionRepository
    private let clock: any Clock

    public init(sessions: any SessionRepository, clock: any Clock) {
        self.sessions = sessions
        self.clock = clock
    }

    /// Returns the session as recorded; nil when none runs (nothing to record).
    @discardableResult
    public func execute(_ change: PresenceChange, threshold: TimeInterval) async throws -> Session? {
        for _ in 0..<5 {
            guard let current = try await sessions.current(), current.isActive else { return nil }
            let next = Self.recording(change, in: current, threshold: threshold, at: clock.now(), boot: clock.bootTime())
            if next == current { return current }
            if try await sessions.replace(current, with: next) { return next }
        }
        throw SessionError.conflict
    }

    /// The session with `change` recorded, as of `now`. Locking while idle
    /// or sleeping while locked goes on with the stretch open (its reason
    /// the first one); only `present` closes it. Returning from sleep also
    /// records the sleep the clocks tell of that no stretch holds.
    static func recording(_ change: PresenceChange, in session: Session, threshold: TimeInterval, at now: Date,
                          boot: BootTimeReading?) -> Session {
        let recorded = switch change.state {
        case .present: session.awayEnds(at: min(change.since, now)).noticingSuspend(at: now, boot: boot)
        case .idle: session.awayBegins(.idle, since: min(change.since, now), threshold: threshold)
        case .locked: session.awayBegins(.locked, since: min(change.since, now), threshold: threshold)
        case .asleep: session.awayBegins(.asleep, since: min(change.since, now), threshold: 0)
        }
        return recorded.stampingReading(at: now, boot: boot)
    }
}
