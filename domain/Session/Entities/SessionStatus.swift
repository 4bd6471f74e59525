import FoundationEssentials
import RetimeShared

/// The active session seen at one instant: how far along it is.
public struct SessionStatus: Sendable, Hashable {
    public var session: Session
    /// The instant the figures are for: the wall clock's now, except for a
    /// strict session that the boot-time clock holds (the wall clock was
    /// moved forward): then the wall time that matches the time really
    /// passed, so elapsed and remaining tell the truth and add up.
    public var at: Date
    public var elapsed: TimeInterval
    public var focused: TimeInterval
    /// Nil for an open-ended session.
    public var remaining: TimeInterval?
    /// Whether the boot-time clock holds the session beyond the wall clock.
    public var heldByBootClock: Bool
    /// The session's group's name now; nil once deleted (or not asked).
    public var groupName: String?
    /// The kind of shield that holds its block (`none`, `hosts`,
    /// `system`); nil when not asked.
    public var shieldKind: String?
    /// Root released the session's block (`system release`): nothing is
    /// blocked for the rest of the session. False when not asked.
    public var blockReleased = false
    /// The session's block was the system service's, and root has since
    /// removed the service (`system uninstall` lifted the block): nothing is
    /// blocked for the rest of the session. False when not asked.
    public var serviceRemoved = false
    /// The name of the device the session was started on
    /// (`Session.device`); nil when it has none or was not asked.
    public var deviceName: String?
    /// Whether the session was started on another device than this one;
    /// false when it names no device or this device was not asked.
    public var startedElsewhere = false
    /// How far the clock of the device that started it is behind this
    /// machine's (negative seconds), when by more than a minute: the
    /// session is judged on that clock, and its instants (`at`, `now`,
    /// the planned end) are that clock's (`SessionClocks`); nil otherwise.
    public var clockOffset: TimeInterval?
    /// When a countdown to stop or pause the strict session early
    /// (`unlock delay:`) runs out, on the wall clock; nil when none runs.
    public var unlockEndsAt: Date?
    /// When the allowance running (`retime allow`) runs out, on the wall
    /// clock; nil when none runs.
    public var allowanceEndsAt: Date?
    /// What is left today of the group's allowance; nil when not asked.
    public var allowanceLeftToday: TimeInterval?
    /// The planned end as of `at`: later than recorded while work waits
    /// for its user (`Session.plannedEnd(at:)`).
    public var plannedEnd: Date? { session.plannedEnd(at: at) }
    /// The wall clock's now (`at` may be earlier, see there).
    public var now: Date

    public init(session: Session, at now: Date, boot: BootTimeReading? = nil) {
        var instant = now
        heldByBootClock = false
        if let plannedEnd = session.plannedEnd(at: now), let end = session.heldEnd(at: now, boot: boot) {
            instant = plannedEnd.addingTimeInterval(-end.timeIntervalSince(now))
            heldByBootClock = true
        }
        // Sleep the clocks tell of is away time even before anything
        // recorded it (no daemon ran): shown, not written.
        let session = session.noticingSuspend(at: instant, boot: boot)
        self.session = session
        at = instant
        self.now = now
        unlockEndsAt = session.unlockRequest?.end(at: now, boot: boot)
        elapsed = session.elapsed(at: instant)
        focused = session.focused(at: instant)
        remaining = session.remaining(at: instant)
        away = session.awayTime(at: instant)
        asleep = session.asleepTime(at: instant)
        lastAway = session.lastAway
    }

    /// Time away so far that does not count as focused (`Session+Away`).
    public var away: TimeInterval
    /// Of `away`, the time the machine was suspended.
    public var asleep: TimeInterval
    /// The last away stretch that counts, once the user is back: what
    /// `status` tells and `keep-away` keeps. Nil when none, or while away.
    public var lastAway: AwayStretch?

    /// From 0 to 1 for a session with a planned end; nil otherwise.
    public var progress: Double? {
        // While work waits for its user the end moves with the wait.
        guard let plannedEnd = session.plannedEnd(at: at) else { return nil }
        let total = plannedEnd.timeIntervalSince(session.startedAt)
        guard total > 0 else { return 1 }
        return min(1, max(0, elapsed / total))
    }
}
