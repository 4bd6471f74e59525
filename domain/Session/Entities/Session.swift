import FoundationEssentials
import RetimeGroup
import RetimeShared

/// A focus session on one group: when it started, when it is planned to end,
/// its breaks and, once ended, how. Transitions are pure functions that return
/// the next state, so use cases can compare-and-swap whole values.
public struct Session: Identifiable, Hashable, Sendable, Codable {
    public let id: SessionID
    /// The group whose targets are blocked; a reference, never the group itself.
    public let groupId: GroupID
    public let startedAt: Date
    /// Nil for an open-ended session. A cycle's work phase that waited for
    /// its user moves it later by the wait (`Session+CycleWait`).
    public internal(set) var plannedEnd: Date?
    public private(set) var endedAt: Date?
    public private(set) var outcome: SessionOutcome
    public let strict: Bool
    public internal(set) var breaks: [Break]
    public let tags: [String]
    public let note: String?
    public let origin: SessionOrigin
    /// For a strict session: its end on the boot-time clock, which moving the
    /// wall clock does not move (semantics.md, "Strict sessions").
    public internal(set) var bootDeadline: BootTimeReading?
    /// The identity of the shield that raised the block (`Shield.identity`):
    /// it is lowered through that one. Nil for sessions recorded before
    /// sessions named their shield, and in history, which does not keep it.
    public let shield: String?
    /// The group's name when the session ran: history shows it after the
    /// group is renamed or deleted. Nil for sessions recorded before
    /// sessions kept it (readers then look the group up).
    public let groupName: String?
    /// The id of the device the session was started on (`DeviceDirectory`),
    /// when several share the data folder. Nil for sessions recorded
    /// before sessions kept it, and in history, which does not keep it.
    public let device: String?
    /// A strict session's countdown to end or pause early (`unlock
    /// delay:DURATION`), while it runs. Not kept in history.
    public internal(set) var unlockRequest: UnlockRequest?
    /// The focus cycle the session runs, fixed when it started; its breaks
    /// are the session's `breaks` (`Session+Cycle`). Nil for a plain session.
    public let cycle: Cycle?
    /// The block lifted on request while it runs (`retime allow`): the
    /// session goes on, its block is down (`Session+Allowance`). Not kept in history.
    public internal(set) var allowance: RunningAllowance?
    /// How long a day `retime allow` may lift this session's block, when it
    /// carries its own (a schedule's `--allowance`); nil: the group's.
    public internal(set) var dailyAllowance: TimeInterval?
    /// The boot-time and awake clocks read as the session started: any
    /// later reading in the same boot tells how long the machine slept
    /// since (`noticingSuspend`). Nil where there is no boot-time clock,
    /// for sessions recorded before retime kept it, and in history.
    public let startReading: BootTimeReading?
    /// The clocks as this machine last read them while the session ran
    /// (`Session+Readings`): any sleep they tell of since came after it.
    /// Nil until a process recorded one after the start; not kept in history.
    public internal(set) var lastReading: ClockReading?
    /// Its away stretches (`Session+Away`); nil when it has none, as in
    /// sessions recorded before retime kept them.
    public internal(set) var away: [AwayStretch]?
    /// How a strict session may end or pause early, as config `unlock`
    /// said when it started: the rule for its whole life, pauses included,
    /// whatever the config says later. Nil for sessions that are not
    /// strict, and for those recorded before sessions kept it (the config
    /// decides then).
    public internal(set) var unlock: UnlockMethod?
    /// The cycle's work phases that waited for their user
    /// (`Session+CycleWait`); nil when none did. Not kept in history, whose
    /// breaks and planned end hold what the waits did.
    public internal(set) var waits: [CycleWait]?
    /// For a strict session: the targets its block holds to its end,
    /// whatever its group loses meanwhile where this session is not seen (a
    /// device sharing the data folder that had not yet synced it unblocks
    /// them, and the merge takes that in): its group's targets as it
    /// started, less those its passcode released (`Session+HeldTargets`).
    /// Nil for sessions that are not strict and those recorded before
    /// sessions kept them. Not kept in history.
    public internal(set) var heldTargets: [Target]?

    public init(id: SessionID = SessionID(), groupId: GroupID, startedAt: Date, plannedEnd: Date?,
                strict: Bool = false, tags: [String] = [], note: String? = nil, origin: SessionOrigin = .manual,
                bootDeadline: BootTimeReading? = nil, shield: String? = nil, groupName: String? = nil, device: String? = nil,
                cycle: Cycle? = nil, startReading: BootTimeReading? = nil) {
        self.id = id
        self.groupId = groupId
        self.startedAt = startedAt
        self.plannedEnd = plannedEnd
        self.endedAt = nil
        self.outcome = .active
        self.strict = strict
        self.breaks = []
        self.tags = tags
        self.note = note
        self.origin = origin
        self.bootDeadline = bootDeadline
        self.shield = shield
        self.groupName = groupName
        self.device = device
        self.cycle = cycle
        self.startReading = startReading
        self.away = nil
        self.waits = nil
    }

    /// Rebuilds a session exactly as it was stored, for adapters that read
    /// persisted sessions back. New sessions start through the other init.
    public init(id: SessionID, groupId: GroupID, startedAt: Date, plannedEnd: Date?, endedAt: Date?,
                outcome: SessionOutcome, strict: Bool, breaks: [Break], tags: [String], note: String?,
                origin: SessionOrigin, bootDeadline: BootTimeReading? = nil, shield: String? = nil, groupName: String? = nil,
                device: String? = nil, cycle: Cycle? = nil, startReading: BootTimeReading? = nil, away: [AwayStretch]? = nil) {
        self.id = id
        self.groupId = groupId
        self.startedAt = startedAt
        self.plannedEnd = plannedEnd
        self.endedAt = endedAt
        self.outcome = outcome
        self.strict = strict
        self.breaks = breaks
        self.tags = tags
        self.note = note
        self.origin = origin
        self.bootDeadline = bootDeadline
        self.shield = shield
        self.groupName = groupName
        self.device = device
        self.cycle = cycle
        self.startReading = startReading
        self.away = away?.isEmpty == true ? nil : away
        self.waits = nil
    }

    public var isActive: Bool { outcome == .active }
    /// Whether it ended as planned: completed, or an open-ended session
    /// stopped (recorded so before `stop` called those completed). `log`
    /// and `report` agree on it.
    public var endedAsPlanned: Bool { outcome == .completed || (outcome == .stopped && plannedEnd == nil) }
    /// Whether a break is going on.
    public var isPaused: Bool { breaks.last.map { $0.end == nil } ?? false }
    /// Whether its block is down by design: a break, or an allowance running.
    public var blockIsLifted: Bool { isPaused || allowance != nil }

    /// The strict-time rule as it holds this session: its planned end on
    /// the wall clock and, when strict, its boot-time deadline (nothing owed
    /// as of that reading); after a reboot the wall clock alone decides.
    public var strictTime: StrictTime {
        let held = strict && bootDeadline != nil
        return StrictTime(plannedEnd: plannedEnd, owed: held ? 0 : nil, asOf: held ? bootDeadline : nil, reboot: .wallClockDecides)
    }

    /// Whether the planned end has come by `now`. A strict session's time is
    /// up only when the boot-time clock agrees (`StrictTime.isOver`), so
    /// moving the clock forward does not end it early.
    public func isExpired(at now: Date, boot: BootTimeReading?) -> Bool {
        strictTime(at: now).isOver(at: now, boot: boot)
    }

    /// When the session ends on the wall clock: its planned end, or for a
    /// strict session later, if the wall clock was moved forward and the
    /// boot-time clock still holds it. Nil for an open-ended session.
    public func endOnWallClock(at now: Date, boot: BootTimeReading?) -> Date? {
        strictTime(at: now).end(at: now, boot: boot)
    }

    /// The wall-clock instant a strict session really ends, when the
    /// boot-time clock holds it beyond its planned end (the wall clock was
    /// moved forward); nil when the clocks agree.
    public func heldEnd(at now: Date, boot: BootTimeReading?) -> Date? {
        strictTime(at: now).heldEnd(at: now, boot: boot)
    }

    /// How long until the boot-time clock reaches a strict session's end, in
    /// the same boot; nil when it does not hold the session.
    public func bootTimeLeft(boot: BootTimeReading?) -> TimeInterval? {
        strictTime.owed(at: boot)
    }

    /// The session with a break opened at `instant`.
    public func pausing(at instant: Date) throws(SessionError) -> Session {
        guard isActive else { throw .notActive }
        guard !isPaused else { throw .alreadyPaused }
        var next = self
        next.breaks.append(Break(start: instant))
        next.unlockRequest = nil
        return next
    }

    /// The session with its open break closed at `instant`.
    public func resuming(at instant: Date) throws(SessionError) -> Session {
        guard isActive else { throw .notActive }
        guard isPaused else { throw .notPaused }
        var next = self
        next.breaks[next.breaks.count - 1].end = max(instant, next.breaks[next.breaks.count - 1].start)
        return next
    }

    /// The session ended at `instant` with `outcome`; an open break, and an
    /// open away stretch, close then too.
    public func ending(at instant: Date, outcome: SessionOutcome) -> Session {
        let end = max(instant, startedAt)
        var next = awayEnds(at: end).closingWait(at: end)
        if next.isPaused {
            next.breaks[next.breaks.count - 1].end = max(end, next.breaks[next.breaks.count - 1].start)
        }
        next.endedAt = end
        next.outcome = outcome
        next.unlockRequest = nil
        return next
    }
}

extension Session {
    /// Where the session's clock stops: its end, else its planned end if that
    /// has passed, else `now`.
    func effectiveEnd(at now: Date) -> Date {
        if let endedAt { return endedAt }
        if let plannedEnd = plannedEnd(at: now), plannedEnd < now { return max(plannedEnd, startedAt) }
        return max(now, startedAt)
    }

    /// Time since the start, up to the (effective) end.
    public func elapsed(at now: Date) -> TimeInterval {
        effectiveEnd(at: now).timeIntervalSince(startedAt)
    }

    /// Time spent in breaks, clipped to the session.
    public func breakTime(at now: Date) -> TimeInterval {
        let end = effectiveEnd(at: now)
        return breaks.reduce(0) { total, pause in
            let from = max(pause.start, startedAt)
            let to = min(pause.end ?? end, end)
            return total + max(0, to.timeIntervalSince(from))
        }
    }

    /// Focused time: elapsed time without breaks and away stretches
    /// (`Session+Away`).
    public func focused(at now: Date) -> TimeInterval {
        max(0, elapsed(at: now) - breakTime(at: now) - awayTime(at: now))
    }

    /// Time left until the planned end; nil for an open-ended session.
    public func remaining(at now: Date) -> TimeInterval? {
        guard let plannedEnd = plannedEnd(at: now) else { return nil }
        return max(0, plannedEnd.timeIntervalSince(effectiveEnd(at: now)))
    }
}
