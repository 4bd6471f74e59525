#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime shield test [TARGET...]`: is it really blocked, for me, now,
/// and if not, which layer leaks (cli.md, "The system service"). Exits 1
/// when a target can still be reached.
enum ShieldCommands {
    static let spec = CommandSpec("shield", summary: "Check what blocks your targets now, layer by layer.", subcommands: [Test.spec])

    struct Test: RetimeCommand {
        static let spec = CommandSpec("test", summary: "Check, per target and layer, whether it is blocked for you right now.",
                                      discussion: """
                                          A target is blocked when a layer holds it (the system service's hosts block, firewall \
                                          set or app layer; for the hosts shield, its hosts file) and every way a browser takes \
                                          to it is closed: the system resolver's answer on ports 80 and 443, and DNS-over-HTTPS \
                                          to its real addresses. It is open (a LEAK) when one of them reaches it, and unknown \
                                          when no layer holds it or what was tried could not be reached (no DNS, no answer in 1 s).
                                          Exit status: 1 when any target is open (the report is still printed; error code \
                                          shield.leak); else 0, unknown targets included, which the last line names.
                                          JSON: {schema, targets:[{target, blocked, verdict, layers:[{layer, blocked, verdict, kind, \
                                          detail}]}]}: verdict is blocked, open or unknown, and blocked is true only for blocked; \
                                          kind is layer (what may hold it), path (a way to it, which decides) or evidence (shown, \
                                          deciding nothing).
                                          """,
                                      arguments: [ArgumentSpec("TARGET", help: "A domain or app:NAME (default: the active session's).",
                                                               optional: true, variadic: true)])
        static let reconciliation = Reconciliation.never
        let targets: [String]
        init(_ parsed: ParsedCommand, values: DateValue) { targets = parsed.allArguments("TARGET") }

        struct Services: CommandServices {
            @Resolved var test: TestShieldUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let targets = try targets.map { text throws(GroupError) in try Target(parsing: text) }
            let checks = try await services.test.execute(targets)
            let json = Documents.document(["targets": .array(checks.map(ShieldCommands.document))])
            let human = ShieldCommands.render(checks, style: io.style)
            let open = checks.filter { $0.verdict == .open }.count
            guard open == 0 else { throw ShieldLeaks(open: open, of: checks.count, report: human, json: json) }
            return CommandResult(json: json, human: human)
        }
    }

    /// `{target, blocked, verdict, layers:[{layer, blocked, verdict, kind, detail}]}`:
    /// `blocked` is true only for the verdict `blocked`.
    static func document(_ check: TargetCheck) -> JSONValue {
        .object(["target": .string(check.target.description), "blocked": .bool(check.blocked), "verdict": .string(check.verdict.rawValue),
                 "layers": .array(check.layers.map { .object(["layer": .string($0.layer), "blocked": .bool($0.blocked),
                                                               "verdict": .string($0.verdict.rawValue), "kind": .string($0.kind.rawValue),
                                                               "detail": .string($0.detail)]) })])
    }

    /// A block per target: its verdict, then a line per layer, the open
    /// paths marked as leaks; then a summary that says "every target is
    /// blocked" only when each one is.
    static func render(_ checks: [TargetCheck], style: Style) -> String {
        guard !checks.isEmpty else { return "Nothing to test: the session's group has no targets." }
        var lines: [String] = []
        for check in checks {
            let verdict = switch check.verdict {
            case .blocked: style.green("blocked")
            case .open: style.red("NOT blocked")
            case .unknown: style.yellow("unknown") + " (" + check.unknowns.joined(separator: "; ") + ")"
            }
            lines.append(style.bold(check.target.displayName) + "  " + verdict)
            for layer in check.layers {
                let word = switch layer.verdict {
                case .blocked: "blocked"
                case .open: layer.isPath ? "LEAK" : "open"
                case .unknown: "unknown"
                }
                lines.append("  " + DisplayWidth.pad(layer.layer, to: 9) + DisplayWidth.pad(word, to: 8)
                             + layer.detail)
            }
        }
        lines.append(summary(checks))
        return lines.joined(separator: "\n")
    }

    static func summary(_ checks: [TargetCheck]) -> String {
        let open = checks.filter { $0.verdict == .open }.count, unknown = checks.filter { $0.verdict == .unknown }.count
        let untold = "\(unknown) of \(checks.count) \(checks.count == 1 ? "target" : "targets") could not be shown blocked (unknown): "
            + "nothing was found open, but that is not proof of a block."
        switch (open, unknown) {
        case (0, 0): return "Every target is blocked."
        case (0, _): return untold
        case (_, 0): return "\(open) of \(checks.count) \(checks.count == 1 ? "target" : "targets") can still be reached."
        default: return "\(open) of \(checks.count) targets can still be reached; \(unknown) could not be shown blocked (unknown)."
        }
    }
}

/// `shield test` found a target open: exit 1, with the report.
struct ShieldLeaks: RetimeCLIError, ReportingError {
    var open: Int
    var of: Int
    var report: String
    var json: JSONValue
    var code: String { "shield.leak" }
    var exitCode: Int32 { 1 }
    var hint: String? { "each LEAK line names the way that is open; 'retime system status' shows which layers run" }
    var description: String { "\(open) of \(of) \(of == 1 ? "target" : "targets") can still be reached" }
}
