import Domain
import JSONDocument

/// A command line that does not fit the command tree: exit code 2.
public struct UsageError: RetimeCLIError, Equatable {
    public enum Reason: String, Sendable {
        case unknownCommand, unknownOption, missingValue, missingArgument, unexpectedArgument, invalidValue
    }

    public var reason: Reason
    public var message: String
    /// What the user probably meant, for a `hint:` line.
    public var hint: String?
    /// The command whose usage applies, e.g. `retime group create`.
    public var command: String

    public init(_ reason: Reason, _ message: String, hint: String? = nil, command: String = "retime") {
        self.reason = reason
        self.message = message
        self.hint = hint
        self.command = command
    }

    public var code: String { "usage.\(reason.rawValue)" }
    public var exitCode: Int32 { 2 }
    public var description: String { message }
}

/// What every error the CLI reports can say: a stable code, an exit code, a
/// message and perhaps a hint.
public protocol RetimeCLIError: Error, CustomStringConvertible {
    var code: String { get }
    var exitCode: Int32 { get }
    var hint: String? { get }
}

/// An error that still has a result to show on stdout (doctor's findings,
/// `daemon status` when none runs) before the error line.
protocol ReportingError: Error {
    var report: String { get }
    var json: JSONValue { get }
}
