import Domain
import FoundationEssentials
import JSONDocument

/// `retime group set-allowance` and `retime allow`: a group's daily
/// allowance, and lifting its block on request (docs/allowances.md).
enum AllowanceCommands {
    struct SetAllowance: RetimeCommand {
        static let spec = CommandSpec("set-allowance", summary: "Set how long a day the group's block may be lifted with 'retime allow'.",
                                      discussion: "DURATION like 15m or 1h, or none. Raising it (from none, or to more) is refused while a strict session on the group runs (exit 3); lowering it never is.",
                                      arguments: [ArgumentSpec("NAME", help: "The group.", names: .groups),
                                                  ArgumentSpec("DURATION", help: "How long a day, or none.")])
        let name: String
        let allowance: TimeInterval?
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            name = parsed.argument("NAME") ?? ""
            let text = parsed.argument("DURATION") ?? ""
            allowance = text.lowercased() == "none" ? nil : try DurationValue.parse(text, option: "DURATION")
        }
        struct Services: CommandServices {
            @Resolved var set: SetAllowanceUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let group = try await services.set.execute(group: name, allowance: allowance)
            let human = group.allowance.map { "\(io.style.bold(group.name.rawValue)) may be lifted for \(DurationValue.format($0)) a day with 'retime allow'." }
                ?? "\(io.style.bold(group.name.rawValue)) has no allowance."
            return CommandResult(json: Documents.document(["group": Documents.group(group)]), human: human)
        }
    }

    struct Allow: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("allow", summary: "Lift a group's block now for a while, spending its daily allowance.",
                                      discussion: "From a running session or a scheduled interval, strict or not. DURATION defaults to what is left today (more than is left gives what is left). The block comes back at its end; --cancel raises it now and gives back what was not used.",
                                      options: [.flag("cancel", help: "Raise the block now; what was not used is not spent.")],
                                      arguments: [ArgumentSpec("GROUP", help: "The group whose block to lift.", optional: true, names: .groups),
                                                  ArgumentSpec("DURATION", help: "How long, like 10m.", optional: true)])
        let group: String?
        let length: TimeInterval?
        let cancel: Bool
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            cancel = parsed.flag("cancel")
            group = parsed.argument("GROUP")
            length = try parsed.argument("DURATION").map { text throws(UsageError) in try DurationValue.parse(text, option: "DURATION") }
            if cancel, group != nil {
                throw UsageError(.unexpectedArgument, "--cancel takes no group: it ends the allowance running", command: parsed.commandName)
            }
            if !cancel, group == nil {
                throw UsageError(.missingArgument, "give the GROUP whose block to lift", hint: "retime allow news 10m", command: parsed.commandName)
            }
        }
        struct Services: CommandServices {
            @Resolved var allow: AllowUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            guard let group else {
                let unused = try await services.allow.cancel()
                return CommandResult(json: Documents.document(["givenBackSeconds": .int(Int64(unused.rounded(.down)))]),
                                     human: "The block is up again; \(DurationValue.format(unused.rounded(.down))) not used is not spent.")
            }
            let receipt = try await services.allow.allow(group, for: length)
            let end = receipt.allowance.plannedEnd
            let json = Documents.document([
                "allowance": AllowanceCommands.allowance(group: receipt.groupName, endsAt: end, left: receipt.leftToday),
                "session": Documents.session(receipt.session, groupName: receipt.groupName, at: receipt.allowance.startedAt),
            ])
            return CommandResult(json: json, human: "\(io.style.bold(receipt.groupName)) is lifted for \(DurationValue.format(receipt.allowance.length)), until \(LocalTime.moment(end)); \(DurationValue.format(receipt.leftToday)) left today.")
        }
    }

    /// The `allowance` object of `status --json` and `allow --json`.
    static func allowance(group: String, endsAt: Date, left: TimeInterval) -> JSONValue {
        .object(["group": .string(group), "endsAt": Documents.time(endsAt), "leftTodaySeconds": .int(Int64(left.rounded(.down)))])
    }
}
