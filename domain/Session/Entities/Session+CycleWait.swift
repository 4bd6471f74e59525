import FoundationEssentials
import RetimeShared

/// A cycle's work phase that waited for its user (`cycle.waitForActivity`,
/// issue 33): the break before it was planned to end at `start`, the user
/// was away then (idle or locked longer than `away.threshold`, or asleep),
/// and work began at `end`, when they came back.
public struct CycleWait: Hashable, Sendable, Codable {
    /// The round whose break it lengthened (1-based): the work that waited
    /// is the next round's.
    public let round: Int
    /// When the break was planned to end: the wait began then.
    public let start: Date
    /// When the user came back and work began; nil while it waits.
    public var end: Date?

    public init(round: Int, start: Date, end: Date? = nil) {
        self.round = round
        self.start = start
        self.end = end
    }

    /// How long it waited, up to `now` while it still does.
    public func length(at now: Date) -> TimeInterval { max(0, (end ?? now).timeIntervalSince(start)) }
}

/// Waiting for the user, as pure functions of the session. A break that
/// ends on the timeline while the session's away stretches say the user is
/// away does not end: the break goes on (the block stays down) as the
/// work's wait, until the stretch closes (the user is back) or `retime
/// next`. The wait is recorded in `waits`, and every later edge of the
/// cycle comes later by it; so does the session's end when the cycle sets
/// it (a `--cycle` started by hand), on the wall clock and, for a strict
/// session, on the boot-time clock too: a strict work phase is never
/// shortened by a wait. A schedule's interval and a flow's `--until` keep
/// their end. Only the daemon records away stretches as they happen, so
/// without it (or without a presence source) nothing waits.
extension Session {
    /// Every wait recorded, oldest first.
    public var cycleWaits: [CycleWait] { waits ?? [] }

    /// The wait going on, if the cycle's work waits for its user now.
    public var openWait: CycleWait? { cycleWaits.last.flatMap { $0.end == nil ? $0 : nil } }

    /// How much later than planned the cycle's edges come: the waits over.
    var cycleShift: TimeInterval { cycleWaits.reduce(0) { $0 + ($1.end == nil ? 0 : $1.length(at: $1.start)) } }

    /// Whether a wait moves the session's end: a fixed cycle's own end
    /// does; a schedule's interval and a flow's `--until` do not.
    var waitsMoveEnd: Bool {
        guard let cycle, !cycle.isFlow, plannedEnd != nil else { return false }
        if case .schedule = origin { return false }
        return true
    }

    /// The planned end as of `now`: while work waits, later by the wait so
    /// far (when waits move it); nil when open-ended.
    public func plannedEnd(at now: Date) -> Date? {
        guard let plannedEnd else { return nil }
        guard waitsMoveEnd, let wait = openWait else { return plannedEnd }
        return plannedEnd.addingTimeInterval(wait.length(at: now))
    }

    /// The strict-time rule as of `now`: `strictTime`, with the wait going
    /// on added to both ends (wall clock and boot time), so a session whose
    /// work waits is not over.
    func strictTime(at now: Date) -> StrictTime {
        guard waitsMoveEnd, let wait = openWait else { return strictTime }
        let shift = wait.length(at: now)
        let held = strict && bootDeadline != nil
        let deadline = bootDeadline.map { BootTimeReading(bootID: $0.bootID, seconds: $0.seconds + shift) }
        return StrictTime(plannedEnd: plannedEnd?.addingTimeInterval(shift), owed: held ? 0 : nil, asOf: held ? deadline : nil,
                          reboot: .wallClockDecides)
    }

    /// The away stretch that made the user away at `instant`: begun by then,
    /// not over before it, and counting by then (asleep, or idle or locked
    /// for at least its threshold: a pause to think is not away).
    func awayStretch(covering instant: Date) -> AwayStretch? {
        awayStretches.last { stretch in
            stretch.start <= instant && (stretch.end.map { $0 > instant } ?? true) && !stretch.kept
                && (stretch.reason == .asleep || instant.timeIntervalSince(stretch.start) >= stretch.threshold)
        }
    }

    /// The session at its break's planned end `at`, as of `now`: the break
    /// ends there, unless the cycle waits for its user and they were away
    /// then; the work then waits (the break goes on), or, if they are back
    /// already (a pass that comes late, after a suspend), begins at their
    /// return.
    func endingBreak(at instant: Date, now: Date) -> Session {
        var next = self
        guard cycle?.waitsForUser == true, let away = awayStretch(covering: instant) else {
            next.breaks[next.breaks.count - 1].end = max(instant, next.breaks[next.breaks.count - 1].start)
            return next
        }
        next.waits = cycleWaits + [CycleWait(round: breaks.count, start: instant)]
        guard let back = away.end else { return next }
        return next.closingWait(at: min(back, max(now, instant)), movingEnd: true)
    }

    /// The session with the wait going on over if its user came back: at
    /// the end of the stretch that made them away, or now if that stretch
    /// is gone (nothing holds the wait). The same session while they are
    /// still away, or when nothing waits.
    func returningFromWait(at now: Date) -> Session {
        guard let wait = openWait else { return self }
        guard let away = awayStretch(covering: wait.start) else { return closingWait(at: now, movingEnd: true) }
        guard let back = away.end else { return self }
        return closingWait(at: min(back, max(now, wait.start)), movingEnd: true)
    }

    /// The session with its open wait over at `instant`: the break it
    /// lengthened ends there and work begins; with `movingEnd`, the session's
    /// end comes later by the wait (when waits move it). The same session
    /// when nothing waits.
    func closingWait(at instant: Date, movingEnd: Bool = false) -> Session {
        guard let wait = openWait else { return self }
        var next = self
        let back = max(instant, wait.start)
        next.waits![next.waits!.count - 1].end = back
        if next.isPaused { next.breaks[next.breaks.count - 1].end = max(back, next.breaks[next.breaks.count - 1].start) }
        if movingEnd, waitsMoveEnd, let plannedEnd {
            let shift = back.timeIntervalSince(wait.start)
            next.plannedEnd = plannedEnd.addingTimeInterval(shift)
            next.bootDeadline = bootDeadline.map { BootTimeReading(bootID: $0.bootID, seconds: $0.seconds + shift) }
        }
        return next
    }
}
