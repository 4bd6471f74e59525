import Domain
import FoundationEssentials
import JSONDocument

extension SessionCommands.Start {
    /// The cycle `--cycle WORK/BREAK[/LONG] [--rounds N]` or `--flow` asks
    /// for; nil for neither. `--cycle` sets the session's length, so it
    /// takes no `--for`/`--until`; a flow's break ratio is the use case's
    /// to read from the configuration.
    static func cycle(_ parsed: ParsedCommand) throws(UsageError) -> Cycle? {
        let command = parsed.commandName
        let rounds = try parsed.value("rounds").map { text throws(UsageError) -> Int in
            guard let number = Int(text.trimmedSpaces), Cycle.allowedRounds.contains(number) else {
                throw UsageError(.invalidValue, "invalid --rounds '\(text)': give a whole number from \(Cycle.allowedRounds.lowerBound) to \(Cycle.allowedRounds.upperBound)",
                                 command: command)
            }
            return number
        }
        switch (parsed.value("cycle"), parsed.flag("flow")) {
        case (.some, true): throw UsageError(.invalidValue, "give --cycle or --flow, not both", command: command)
        case (nil, true):
            guard rounds == nil else { throw UsageError(.invalidValue, "--rounds goes with --cycle; a flow runs until it ends", command: command) }
            return .flow()
        case (nil, false):
            guard rounds == nil else { throw UsageError(.invalidValue, "--rounds goes with --cycle", command: command) }
            return nil
        case (let text?, false):
            guard parsed.value("for") == nil, parsed.value("until") == nil else {
                throw UsageError(.invalidValue, "--cycle sets the session's length: give no --for or --until", command: command)
            }
            return try fixedCycle(text, rounds: rounds ?? Cycle.defaultRounds, command: command)
        }
    }

    /// `WORK/BREAK[/LONG]`, as `--cycle` of `start` and `schedule add` takes it.
    static func fixedCycle(_ text: String, rounds: Int = Cycle.defaultRounds, command: String) throws(UsageError) -> Cycle {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count) else {
            throw UsageError(.invalidValue, "invalid --cycle '\(text)'",
                             hint: "write it WORK/BREAK or WORK/BREAK/LONG, like 25m/5m or 25m/5m/15m", command: command)
        }
        let lengths = try parts.map { part throws(UsageError) in try DurationValue.parse(part, option: "cycle") }
        return .fixed(work: lengths[0], breakLength: lengths[1], longBreak: lengths.count == 3 ? lengths[2] : nil, rounds: rounds)
    }

    /// What `start` says of a cycle's session.
    static func describe(_ cycle: Cycle, of session: Session, group: String) -> String {
        guard let work = cycle.work, let rounds = cycle.rounds, let pause = cycle.breakLength else {
            let ratio = Int(((cycle.breakRatio ?? Cycle.defaultBreakRatio) * 100).rounded())
            let end = session.plannedEnd.map { " until \(LocalTime.moment($0, now: session.startedAt))" } ?? ""
            return "a flow on \(group)\(end): work until 'retime next', then a break of \(ratio)% of it"
        }
        let long = cycle.longBreak.flatMap { $0 == pause || rounds <= Cycle.roundsBeforeLongBreak ? nil : $0 }
            .map { ", \(DurationValue.format($0)) after every fourth" } ?? ""
        let end = session.plannedEnd.map { " until \(LocalTime.moment($0, now: session.startedAt))" } ?? ""
        return "\(rounds) round\(rounds == 1 ? "" : "s") of \(DurationValue.format(work)) on \(group) with \(DurationValue.format(pause)) breaks\(long)\(end)"
    }
}

extension SessionCommands {
    struct Next: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("next", summary: "End the cycle's phase now and begin the next: a break, or work again.",
                                      discussion: "From a break into work always; a strict --cycle's work phase ends only at its end (exit 3). The cycle's timeline stays: the phase begun ends when it was planned to.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        struct Services: CommandServices {
            @Resolved var next: NextPhaseUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let receipt = try await services.next.execute()
            let session = receipt.session
            guard let phase = session.cyclePhase, let cycle = session.cycle else {
                return CommandResult(json: document(receipt, at: session.startedAt), human: "The session has ended.")
            }
            let human = (phase.kind.isBreak ? "Break: the block is lifted" : "Back to work: the block is up again")
                + " (" + StatusCommand.phaseLine(phase, of: cycle, now: phase.start, style: Style(enabled: false)) + ")."
            return CommandResult(json: document(receipt, at: phase.start), human: human)
        }
    }
}
