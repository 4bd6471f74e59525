import Domain
import Foundation

/// `retime shield test [TARGET...]`: is it really blocked, for me, now,
/// and if not, which layer leaks (cli.md, "The system service").
enum ShieldCommands {
    static let spec = CommandSpec("shield", summary: "Check what blocks your targets now, layer by layer.", subcommands: [Test.spec])

    struct Test: RetimeCommand {
        static let spec = CommandSpec("test", summary: "Check, per target and layer, whether it is blocked for you right now.",
                                      arguments: [ArgumentSpec("TARGET", help: "A domain or app:NAME (default: the active session's).",
                                                               optional: true, variadic: true)])
        static let reconciliation = Reconciliation.never
        let targets: [String]
        init(_ parsed: ParsedCommand, values: DateValue) { targets = parsed.allArguments("TARGET") }

        struct Services: CommandServices {
            let test: TestShieldUseCase
            init(_ services: ServiceSource) throws { test = try services() }
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let targets = try targets.map { text throws(GroupError) in try Target(parsing: text) }
            let checks = try await services.test.execute(targets)
            return CommandResult(json: Documents.document(["targets": .array(checks.map(ShieldCommands.document))]),
                                 human: ShieldCommands.render(checks, style: io.style))
        }
    }

    static func document(_ check: TargetCheck) -> JSONValue {
        .object(["target": .string(check.target.description), "blocked": .bool(check.blocked),
                 "layers": .array(check.layers.map { .object(["layer": .string($0.layer), "blocked": .bool($0.blocked),
                                                               "detail": .string($0.detail)]) })])
    }

    /// A block per target: its verdict, then a line per layer, the open
    /// paths marked as leaks.
    static func render(_ checks: [TargetCheck], style: Style) -> String {
        guard !checks.isEmpty else { return "Nothing to test: the session's group has no targets." }
        var lines: [String] = []
        for check in checks {
            lines.append(style.bold(check.target.displayName) + "  " + (check.blocked ? style.green("blocked") : style.red("NOT blocked")))
            for layer in check.layers {
                let verdict = layer.blocked ? "blocked" : (layer.isPath ? "LEAK" : "open")
                lines.append("  " + layer.layer.padding(toLength: 9, withPad: " ", startingAt: 0) + verdict.padding(toLength: 8, withPad: " ", startingAt: 0)
                             + layer.detail)
            }
        }
        let leaking = checks.filter { !$0.blocked }.count
        lines.append(leaking == 0 ? "Every target is blocked." : "\(leaking) of \(checks.count) targets can still be reached.")
        return lines.joined(separator: "\n")
    }
}
