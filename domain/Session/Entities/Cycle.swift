import FoundationEssentials

/// A focus cycle, fixed when its session starts (cli.md, "Focus cycles"):
/// work phases with breaks between them, which the block follows. A fixed
/// cycle (`--cycle WORK/BREAK[/LONG] --rounds N`) has its phases laid out
/// from the start; a flow (`--flow`) works until `retime next`, then rests
/// for `breakRatio` of the work phase just run.
public struct Cycle: Hashable, Sendable, Codable {
    /// A work phase's length; nil for a flow, whose work lasts until `next`.
    public let work: TimeInterval?
    /// A break's length (a fixed cycle's).
    public let breakLength: TimeInterval?
    /// The break after every fourth round (a fixed cycle's).
    public let longBreak: TimeInterval?
    /// How many work phases; nil for a flow.
    public let rounds: Int?
    /// A flow's break as a share of the work phase before it.
    public let breakRatio: Double?
    /// Its work phases wait for the user to come back before they begin
    /// (`cycle.waitForActivity`, read when the session starts;
    /// `Session+CycleWait`). Nil when off, as in sessions recorded before
    /// retime had it.
    public let waitsForActivity: Bool?

    /// Every fourth round is followed by the long break.
    public static let roundsBeforeLongBreak = 4
    /// Rounds a fixed cycle may have.
    public static let allowedRounds: ClosedRange<Int> = 1...48
    /// A flow's break ratio: more than nothing, at most as long as the work.
    public static let allowedRatio: ClosedRange<Double> = 0.01...1
    public static let defaultRounds = 4
    public static let defaultBreakRatio = 0.2

    /// A fixed cycle; `longBreak` defaults to `breakLength`.
    public static func fixed(work: TimeInterval, breakLength: TimeInterval, longBreak: TimeInterval? = nil,
                             rounds: Int = defaultRounds) -> Cycle {
        Cycle(work: work, breakLength: breakLength, longBreak: longBreak ?? breakLength, rounds: rounds, breakRatio: nil,
              waitsForActivity: nil)
    }

    /// A flow: work until `next`, then a break of `breakRatio` of it.
    public static func flow(breakRatio: Double = defaultBreakRatio) -> Cycle {
        Cycle(work: nil, breakLength: nil, longBreak: nil, rounds: nil, breakRatio: breakRatio, waitsForActivity: nil)
    }

    private init(work: TimeInterval?, breakLength: TimeInterval?, longBreak: TimeInterval?, rounds: Int?, breakRatio: Double?,
                 waitsForActivity: Bool?) {
        self.work = work
        self.breakLength = breakLength
        self.longBreak = longBreak
        self.rounds = rounds
        self.breakRatio = breakRatio
        self.waitsForActivity = waitsForActivity
    }

    public var isFlow: Bool { work == nil }

    /// Whether its work phases wait for the user (`cycle.waitForActivity`).
    public var waitsForUser: Bool { waitsForActivity == true }

    /// The same cycle, its work phases waiting for the user or not.
    public func waitingForActivity(_ on: Bool = true) -> Cycle {
        Cycle(work: work, breakLength: breakLength, longBreak: longBreak, rounds: rounds, breakRatio: breakRatio,
              waitsForActivity: on ? true : nil)
    }

    /// Checks the lengths and counts, so a session is never planned on a
    /// cycle it cannot run.
    public func validated() throws(SessionError) -> Cycle {
        if let ratio = breakRatio {
            guard ratio.isFinite, Self.allowedRatio.contains(ratio) else {
                throw .invalidCycle("a flow's break ratio is from 0.01 to 1 (flow.breakRatio)")
            }
            return self
        }
        guard let work, let breakLength, let longBreak, let rounds else { throw .invalidCycle("a cycle needs WORK/BREAK") }
        for length in [work, breakLength, longBreak] where !(length.isFinite && SessionLength.allowed.contains(length)) {
            throw .invalidCycle("each phase lasts from 1 second to 24 hours")
        }
        guard Self.allowedRounds.contains(rounds) else {
            throw .invalidCycle("--rounds is from \(Self.allowedRounds.lowerBound) to \(Self.allowedRounds.upperBound)")
        }
        return self
    }

    /// The break after round `round` (1-based): the long one after every fourth.
    public func breakAfter(round: Int) -> TimeInterval {
        round % Self.roundsBeforeLongBreak == 0 ? (longBreak ?? breakLength ?? 0) : (breakLength ?? 0)
    }

    /// Whether the break after round `round` is a long one (and differs from a short one).
    public func isLongBreak(after round: Int) -> Bool {
        round % Self.roundsBeforeLongBreak == 0 && longBreak != breakLength
    }

    /// A fixed cycle's whole length: every work phase and the breaks between them.
    public var length: TimeInterval? {
        guard let work, let rounds else { return nil }
        return Double(rounds) * work + (1..<max(1, rounds)).reduce(0) { $0 + breakAfter(round: $1) }
    }

    /// The same cycle run within a session of `length` (a schedule's
    /// interval): as many rounds as begin before its end, the last one's
    /// work lasting to the end. A flow is unchanged.
    public func fitted(to length: TimeInterval) -> Cycle {
        guard let work, work > 0, let breakLength else { return self }
        var rounds = 1, next = work + breakAfter(round: 1)
        while next < length, rounds < 10_000 {
            rounds += 1
            next += work + breakAfter(round: rounds)
        }
        return Cycle(work: work, breakLength: breakLength, longBreak: longBreak, rounds: rounds, breakRatio: nil,
                     waitsForActivity: waitsForActivity)
    }

    /// Where, counted from the session's start, the break after round
    /// `round` begins and ends as planned (a fixed cycle's).
    public func plannedBreak(after round: Int) -> (start: TimeInterval, end: TimeInterval)? {
        guard let work, let rounds, round >= 1, round < rounds else { return nil }
        let start = Double(round) * work + (1..<round).reduce(0) { $0 + breakAfter(round: $1) }
        return (start, start + breakAfter(round: round))
    }
}
