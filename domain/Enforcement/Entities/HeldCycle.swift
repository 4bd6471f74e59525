import FoundationEssentials
import RetimeSession
import RetimeShared

/// The plan of a strict session's fixed focus cycle, kept by the system
/// service with the block (docs/cycles.md, "With the system service"): the
/// service lowers the block at each break and raises it at the break's end
/// itself, on the clocks that hold a strict session's end. A work phase
/// starts only when both the wall clock and the boot time served say so; a
/// break ends as soon as either does: moving the wall clock forward does
/// not end a work phase early, moving it back does not stretch a break.
/// After a reboot the wall clock alone decides, as for the session's end.
public struct HeldCycle: Codable, Hashable, Sendable {
    public let cycle: Cycle
    /// The session's start: the phases' offsets are from here.
    public let startedAt: Date
    /// How far into the session the block was first raised (the wall
    /// clock's word): the block's served boot time counts on from there.
    public let offset: TimeInterval
    /// The boot the block was first raised in: served time is the
    /// session's elapsed time only in that boot.
    public let bootID: String?
    /// The rounds whose break its user ended early (`retime next`, a raise).
    public private(set) var endedEarly: Set<Int>

    public init(cycle: Cycle, startedAt: Date, raisedAt now: Date, boot: BootTimeReading?) {
        self.cycle = cycle
        self.startedAt = startedAt
        self.offset = max(0, now.timeIntervalSince(startedAt))
        self.bootID = boot?.bootID
        self.endedEarly = []
    }

    /// A break the plan has now: its round and when it ends on the wall
    /// clock, as of `now` with `served` boot time in force in `boot`.
    public func breakNow(at now: Date, served: TimeInterval, boot: BootTimeReading?) -> (round: Int, end: Date)? {
        let (wall, booted) = elapsed(at: now, served: served, boot: boot)
        guard let rounds = cycle.rounds else { return nil }
        for round in 1..<max(1, rounds) where !endedEarly.contains(round) {
            guard let phase = cycle.plannedBreak(after: round) else { continue }
            if min(wall, booted) >= phase.start, max(wall, booted) < phase.end {
                return (round, min(startedAt.addingTimeInterval(phase.end), now.addingTimeInterval(phase.end - booted)))
            }
        }
        return nil
    }

    /// The next instant on the wall clock the plan changes the block, as
    /// of `now`: the end of the break it is in, or the start of the next.
    public func nextEdge(at now: Date, served: TimeInterval, boot: BootTimeReading?) -> Date? {
        if let current = breakNow(at: now, served: served, boot: boot) { return current.end }
        let (wall, booted) = elapsed(at: now, served: served, boot: boot)
        guard let rounds = cycle.rounds else { return nil }
        for round in 1..<max(1, rounds) where !endedEarly.contains(round) {
            guard let phase = cycle.plannedBreak(after: round), min(wall, booted) < phase.start else { continue }
            return max(startedAt.addingTimeInterval(phase.start), now.addingTimeInterval(phase.start - booted))
        }
        return nil
    }

    /// Ends the break the plan has now, if any, and if it began more than
    /// `StrictTime.tolerance` ago (a raise at a break's very start is the
    /// user's daemon reaching the edge a moment late, not `next`). Returns
    /// whether it did.
    public mutating func endBreak(at now: Date, served: TimeInterval, boot: BootTimeReading?) -> Bool {
        guard let current = breakNow(at: now, served: served, boot: boot),
              let phase = cycle.plannedBreak(after: current.round) else { return false }
        let (wall, booted) = elapsed(at: now, served: served, boot: boot)
        guard min(wall, booted) - phase.start > StrictTime.tolerance else { return false }
        endedEarly.insert(current.round)
        return true
    }

    /// Time into the session on the wall clock, and by the boot time served
    /// (the wall clock's, after a reboot).
    private func elapsed(at now: Date, served: TimeInterval, boot: BootTimeReading?) -> (wall: TimeInterval, boot: TimeInterval) {
        let wall = now.timeIntervalSince(startedAt)
        guard let bootID, let boot, boot.bootID == bootID else { return (wall, wall) }
        return (wall, offset + served)
    }
}
