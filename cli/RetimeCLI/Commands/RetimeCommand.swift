#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// A command of the CLI: its declaration (help beside every option), the
/// reading of its values up front (bad input is a usage error before
/// anything runs), the services it uses, and what it does with them: call
/// one use case (or one port, for a plain read) and say what it returned.
protocol RetimeCommand: Sendable {
    /// What the command uses. The root builds exactly these, and only for
    /// the command that runs; a command never looks a service up itself.
    associatedtype Services: CommandServices = NoServices
    static var spec: CommandSpec { get }
    /// Who completes an expired session for this command, once.
    static var reconciliation: Reconciliation { get }
    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError)
    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult
}

extension RetimeCommand {
    static var reconciliation: Reconciliation { Services.self == NoServices.self ? .never : .byRoot }
}

/// Who runs `ActiveSession.reconcile` (an expired session completed at its
/// planned end, a half-done ending finished, a block left down raised) for
/// a command: exactly one of these, so it runs once per command.
/// `CompositionRootTests` holds every declaration to the command's
/// services.
enum Reconciliation: Sendable {
    /// The root, before the command, tolerating a block it cannot lift
    /// (`log` or `config` must not fail because the hosts file is
    /// read-only): the command's use cases do not reconcile.
    case byRoot
    /// The command's session use case (a `ReconcilesSession`), with its own
    /// policy.
    case byUseCase
    /// Nobody: the command looks at the data as it is (`doctor`, `daemon
    /// status`) or touches none.
    case never
}

/// The console side of a command: where it writes, in which style, and
/// whether a JSON document was asked for.
struct CommandIO: Sendable {
    let console: Console
    let style: Style
    let json: Bool
}

/// What a command hands back: its JSON document and its human text.
struct CommandResult {
    var json: JSONValue
    var human: String
    /// Output that is the same with or without `--json` (an export file),
    /// written as it is instead of `json` or `human`.
    var exported: String? = nil
    /// Whether the human text, when longer than the terminal, goes through
    /// the pager (`log`).
    var pageable = false
    /// Like `exported`, but written in pieces as they are made, so that a
    /// large export is never held whole.
    var stream: (@Sendable (_ write: (String) -> Void) throws -> Void)? = nil

    static func ok(_ human: String) -> CommandResult { CommandResult(json: Documents.ok, human: human) }
}
