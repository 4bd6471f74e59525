#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime doctor [--repair]`: checks permissions, every data file, backups,
/// history, the services' wiring, the daemon and stale blocks
/// (`DoctorUseCase`). Its inspectors work on the files themselves, so it
/// reports even when the data cannot be read.
struct DoctorCommand: RetimeCommand {
    static let spec = CommandSpec("doctor", summary: "Check the data directory; --repair fixes what it safely can.",
                                  discussion: "A damaged file is moved aside (never deleted) and the newest readable backup restored.",
                                  options: [.flag("repair", help: "Repair what was found.")])
    static let reconciliation = Reconciliation.never

    struct Services: CommandServices {
        @Resolved var doctor: DoctorUseCase
    }

    let repair: Bool
    init(_ parsed: ParsedCommand, values: DateValue) { repair = parsed.flag("repair") }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let checks = await services.doctor.execute(repairing: repair)
        let problems = checks.filter { $0.status == .error }
        let json = Documents.document([
            "ok": .bool(problems.isEmpty),
            "checks": .array(checks.map { .object(["name": .string($0.name), "status": .string($0.status.rawValue), "detail": .string($0.detail)]) }),
        ])
        let columns = io.console.proseColumns
        let human = checks.map { check in
            let mark = switch check.status {
            case .ok: io.style.green("ok")
            case .warning: io.style.yellow("warning")
            case .error: io.style.red("error")
            case .repaired: io.style.green("repaired")
            }
            return Self.finding(mark, width: check.status.rawValue.count, "\(check.name): \(check.detail)", columns: columns)
        }.joined(separator: "\n")
        guard problems.isEmpty else { throw DoctorFindings(count: problems.count, report: human, json: json) }
        return CommandResult(json: json, human: human)
    }
}

extension DoctorCommand {
    /// One finding: its mark (`markWidth` columns on screen, its colour
    /// aside), two spaces and its text, wrapped to `columns` with the rest
    /// of a long one indented beneath it.
    static func finding(_ mark: String, width markWidth: Int, _ text: String, columns: Int) -> String {
        let parts = HelpRenderer.wrap(text, width: max(20, columns - markWidth - 2))
        guard parts.count > 1 else { return "\(mark)  \(text)" }
        let rest = HelpRenderer.wrap(parts.dropFirst().joined(separator: " "), width: max(20, columns - 4))
        return (["\(mark)  \(parts[0])"] + rest.map { "    " + $0 }).joined(separator: "\n")
    }
}

/// Doctor found problems it did not repair: exit 4, with the report.
struct DoctorFindings: RetimeCLIError, ReportingError {
    var count: Int
    var report: String
    var json: JSONValue
    var code: String { "store.problemsFound" }
    var exitCode: Int32 { 4 }
    var hint: String? { "each error above says what mends it; 'retime doctor --repair' moves damaged files aside and restores backups" }
    var description: String { "doctor found \(count) problem(s)" }
}
