import FoundationEssentials
import RetimeShared

/// A block only tightens (semantics.md, "Service, second pass"): a raise
/// for a session the service already holds takes the stricter of the held
/// terms and the request's, never the looser. A session's id can be known
/// before its block is raised (a scheduled interval's is derived from the
/// schedule and the interval's start; a second machine reads it from the
/// synced folder), so whatever a user raises early, twice or out of order
/// under that id must not weaken the real raise.
extension HeldBlock {
    /// This block as a raise of `request` at `now` leaves it:
    /// - strict once either was: a block that becomes strict takes the
    ///   strict request's unlock rule and cycle, and owes its whole length
    ///   from now (the time it stood loosely, lowerable at will, is not
    ///   strict time), its countdown and typed proof from before dropped;
    /// - the later planned end and the longer length;
    /// - the stricter unlock rule (`UnlockMethod.tightest(_:_:)`);
    /// - for two strict raises that disagree about the cycle (or its start),
    ///   no cycle: the service lowers the block at no break (the strictest),
    ///   since it cannot tell which plan is the session's.
    /// Targets are replaced for a block that is not strict, and only added
    /// to a strict one.
    mutating func tighten(by request: HeldBlocks.Request, now: Date, boot: BootTimeReading?) {
        let had = Set(targets)
        targets = strict || request.strict ? targets + request.targets.filter { !had.contains($0) } : request.targets
        guard request.strict else {
            // A raise with no strict terms (a refresh of the targets, or a
            // loose session's) only moves a loose block's end later.
            if !strict { plannedEnd = Self.later(plannedEnd, request.plannedEnd, openIsLater: true) }
            return
        }
        if !strict {
            strict = true
            // The strict request's terms are the session's; what the loose
            // record said of its end, length or rule was never binding.
            plannedEnd = Self.later(plannedEnd, request.plannedEnd, openIsLater: false)
            length = request.length
            unlock = request.unlock
            cycle = Self.heldCycle(of: request, at: now, boot: boot)
            countdown = nil
            typedAt = nil
            restartCount(at: boot)
            return
        }
        plannedEnd = Self.later(plannedEnd, request.plannedEnd, openIsLater: false)
        if let asked = request.length { length = max(length ?? asked, asked) }
        if let asked = request.unlock { unlock = UnlockMethod.tightest(unlock ?? .standard, asked) }
        if let held = cycle, !Self.plan(held, isAskedBy: request) { cycle = nil }
    }

    /// Whether `request` names the same cycle from the same start as the
    /// plan held (the start within a millisecond: it crossed a socket).
    private static func plan(_ held: HeldCycle, isAskedBy request: HeldBlocks.Request) -> Bool {
        guard held.cycle == request.cycle, let start = request.startedAt else { return false }
        return abs(start.timeIntervalSince(held.startedAt)) < 0.001
    }

    /// The later of two planned ends. An open end (nil) is the later one
    /// for a loose block (only its user lowers it); a strict block needs an
    /// end, so there the one that is stated wins.
    private static func later(_ held: Date?, _ asked: Date?, openIsLater: Bool) -> Date? {
        guard let held, let asked else { return openIsLater ? nil : held ?? asked }
        return max(held, asked)
    }

    /// The plan of a strict request's fixed cycle, kept with the block (a
    /// flow's work has no planned end: docs/cycles.md).
    static func heldCycle(of request: HeldBlocks.Request, at now: Date, boot: BootTimeReading?) -> HeldCycle? {
        guard request.strict, let cycle = request.cycle, !cycle.isFlow, let startedAt = request.startedAt else { return nil }
        return HeldCycle(cycle: cycle, startedAt: startedAt, raisedAt: now, boot: boot)
    }
}

extension UnlockMethod {
    /// The stricter of a strict block's rule and a later raise's: `never`
    /// over anything; within one kind, the longer countdown or text. Two
    /// rules of different kinds cannot be ranked (the passcode is no bar to
    /// a user who knows it, a countdown always ends), and a strict session's
    /// raises never disagree about its rule unless its files were edited or
    /// its id raised by someone else first: then no early end at all.
    public static func tightest(_ held: UnlockMethod, _ asked: UnlockMethod) -> UnlockMethod {
        switch (held, asked) {
        case _ where held == asked: held
        case (.never, _), (_, .never): .never
        case (.delay(let kept), .delay(let wanted)): .delay(max(kept, wanted))
        case (.typing(let kept), .typing(let wanted)): .typing(max(kept, wanted))
        default: .never
        }
    }
}
