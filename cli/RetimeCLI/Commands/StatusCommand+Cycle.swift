import Domain
import FoundationEssentials

extension StatusCommand {
    /// Where a cycle stands, as `status` says it: the phase, the round
    /// (`2/4`, or `2` for a flow) and the time left in the phase.
    static func phaseLine(_ phase: CyclePhase, of cycle: Cycle, now: Date, style: Style) -> String {
        let round = cycle.rounds.map { "round \(phase.round)/\($0)" } ?? "round \(phase.round)"
        if phase.kind == .waiting {
            // The break is over and its user away: work begins at their return.
            return style.yellow("work waits for you") + " (not blocked) · \(round) · it begins when you are back, or at 'retime next'"
        }
        let left = phase.end.map { " · \(countdown(max(0, $0.timeIntervalSince(now)))) left in it" }
            ?? (cycle.isFlow && !phase.kind.isBreak ? " · until 'retime next'" : "")
        let name = phase.kind.isBreak ? style.yellow(phase.kind.rawValue) + " (not blocked)" : style.green(phase.kind.rawValue)
        return "\(name) · \(round)\(left)"
    }
}
