import FoundationEssentials
import RetimeShared

/// Where a cycle stands: the phase it is in, which round, and when the
/// phase is planned to end.
public struct CyclePhase: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case work
        case shortBreak = "break"
        case longBreak = "long break"
        /// A break over on the timeline while its user is away: the work
        /// after it waits for them (`cycle.waitForActivity`); the block
        /// stays down as in the break.
        case waiting

        public var isBreak: Bool { self != .work }
    }

    public let kind: Kind
    /// The round of the work phase running, or of the one a break follows (1-based).
    public let round: Int
    public let start: Date
    /// When the phase ends as planned, on the wall clock; nil for a flow's
    /// work phase, which ends at `next` (or at the session's end, if it has one).
    public let end: Date?
}

/// A cycle's phase edges, as pure functions of the session (semantics.md,
/// "Cycles and allowances"). The timeline is fixed when the session starts;
/// the breaks taken so far are the session's `breaks`, one per round that
/// was followed by a break, so `next` (which moves one edge earlier) and the
/// edges passed are recorded where history keeps breaks already. A strict
/// cycle's edges are on the boot-time clock, which holds its end too
/// (`StrictTime`): moving the wall clock forward does not shorten a work
/// phase, moving it back does not stretch a break. After a reboot, as for
/// a strict session's end, the wall clock alone decides.
extension Session {
    /// An edge of the cycle: a break that begins or one that ends, at its
    /// wall-clock instant on the timeline.
    enum CycleEdge: Equatable {
        case breakStarts(Date)
        case breakEnds(Date)

        var at: Date {
            switch self { case .breakStarts(let at), .breakEnds(let at): at }
        }
    }

    /// The cycle's next edge; nil when none is planned (a flow's work
    /// phase, the last round's work, no cycle, an ended session).
    var pendingCycleEdge: CycleEdge? {
        guard let cycle, isActive else { return nil }
        let taken = breaks.count
        if isPaused, let open = breaks.last {
            // Work that waits for its user has no edge: their return ends it.
            if openWait != nil { return nil }
            if let ratio = cycle.breakRatio {
                let workStart = taken >= 2 ? (breaks[taken - 2].end ?? startedAt) : startedAt
                return .breakEnds(open.start.addingTimeInterval(max(0, open.start.timeIntervalSince(workStart)) * ratio))
            }
            guard let planned = cycle.plannedBreak(after: taken) else { return nil }
            return .breakEnds(startedAt.addingTimeInterval(planned.end + cycleShift))
        }
        guard let planned = cycle.plannedBreak(after: taken + 1) else { return nil }
        return .breakStarts(startedAt.addingTimeInterval(planned.start + cycleShift))
    }

    /// The boot-time reading at the session's start, for a strict session
    /// whose end is held by the boot-time clock; nil otherwise.
    private var bootAtStart: BootTimeReading? {
        guard strict, let deadline = bootDeadline, let plannedEnd else { return nil }
        return BootTimeReading(bootID: deadline.bootID, seconds: deadline.seconds - plannedEnd.timeIntervalSince(startedAt))
    }

    /// Time since the start on the boot-time clock, in the same boot; nil
    /// when it does not hold the session (not strict, another boot).
    private func bootElapsed(_ boot: BootTimeReading?) -> TimeInterval? {
        guard let start = bootAtStart, let boot, boot.bootID == start.bootID else { return nil }
        return boot.seconds - start.seconds
    }

    /// Whether `edge` has come at `now`: on the boot-time clock while it
    /// holds a strict session (it runs the phases' real lengths, however the
    /// wall clock is moved), else on the wall clock.
    func hasReached(_ edge: CycleEdge, at now: Date, boot: BootTimeReading?) -> Bool {
        guard let onBoot = bootElapsed(boot) else { return now >= edge.at }
        return onBoot >= edge.at.timeIntervalSince(startedAt)
    }

    /// When `edge` comes on the wall clock, as of `now`: its instant on the
    /// timeline, or as long from now as the boot-time clock still has to
    /// run to it (the wall clock was moved).
    func wallInstant(of edge: CycleEdge, at now: Date, boot: BootTimeReading?) -> Date {
        guard let onBoot = bootElapsed(boot) else { return edge.at }
        return now.addingTimeInterval(max(0, edge.at.timeIntervalSince(startedAt) - onBoot))
    }

    /// The session with every edge of its cycle that has come by `now`
    /// passed: the breaks begun and ended at their instants on the timeline.
    /// The same session when nothing is due (or it runs no cycle).
    public func advancingCycle(at now: Date, boot: BootTimeReading?) -> Session {
        var next = isActive ? returningFromWait(at: now) : self
        while let edge = next.pendingCycleEdge, next.hasReached(edge, at: now, boot: boot) {
            // Nothing of a cycle happens after the session's planned end.
            if let plannedEnd = next.plannedEnd, edge.at >= plannedEnd { break }
            switch edge {
            case .breakStarts(let at): next.breaks.append(Break(start: at))
            case .breakEnds(let at): next = next.endingBreak(at: at, now: now)
            }
        }
        return next
    }

    /// When the cycle's next edge comes on the wall clock, as of `now`:
    /// the daemon wakes then. Nil when none is planned.
    public func nextCycleEdge(at now: Date, boot: BootTimeReading?) -> Date? {
        guard let edge = pendingCycleEdge else { return nil }
        if let plannedEnd, edge.at >= plannedEnd { return nil }
        return wallInstant(of: edge, at: now, boot: boot)
    }

    /// The phase the cycle is in, as the session records it (advance it
    /// first: `advancingCycle`); nil without a cycle or once it ended.
    public var cyclePhase: CyclePhase? {
        guard let cycle, isActive else { return nil }
        let taken = breaks.count
        if let wait = openWait {
            return CyclePhase(kind: .waiting, round: taken + 1, start: wait.start, end: nil)
        }
        if isPaused, let open = breaks.last {
            let end = pendingCycleEdge?.at
            return CyclePhase(kind: cycle.isLongBreak(after: taken) ? .longBreak : .shortBreak, round: taken, start: open.start,
                              end: end.map { edge in plannedEnd.map { min(edge, $0) } ?? edge })
        }
        let start = breaks.last?.end ?? startedAt
        let end = pendingCycleEdge?.at ?? plannedEnd
        return CyclePhase(kind: .work, round: taken + 1, start: start, end: cycle.isFlow ? plannedEnd : end)
    }

    /// The session with its current phase ended at `now` and the next one
    /// begun (`retime next`): a break ends into work, always; a work phase
    /// ends into its break, unless the cycle is strict and fixed (a strict
    /// work phase ends only at its end; a flow's has no end to shorten).
    /// The timeline stays: the phase begun ends when it was planned to, so
    /// the session ends when it was planned to.
    public func passingPhase(at now: Date, boot: BootTimeReading?) throws(SessionError) -> Session {
        guard isActive else { throw .notActive }
        guard let cycle else { throw .noCycle }
        var next = self
        // Work that waits for its user begins now: they are back.
        if openWait != nil { return closingWait(at: now, movingEnd: true) }
        if isPaused {
            next.breaks[next.breaks.count - 1].end = max(now, next.breaks[next.breaks.count - 1].start)
            return next
        }
        if !cycle.isFlow {
            guard let edge = pendingCycleEdge else { throw .lastRound(plannedEnd ?? now) }
            if strict { throw .strictWorkPhase(until: wallInstant(of: edge, at: now, boot: boot)) }
        }
        next.breaks.append(Break(start: max(now, breaks.last?.end ?? startedAt)))
        return next
    }
}
