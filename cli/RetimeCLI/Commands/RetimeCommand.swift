import Domain
import Foundation

/// A command of the CLI: its declaration (help beside every option), the
/// reading of its values up front (bad input is a usage error before
/// anything runs), and what it does.
protocol RetimeCommand: Sendable {
    static var spec: CommandSpec { get }
    /// Whether the runner completes an expired session before the command
    /// runs (false where the command's own use case does it already).
    static var reconcilesFirst: Bool { get }
    /// Whether the command needs the services (a validated container).
    static var usesServices: Bool { get }
    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError)
    func run(_ context: CommandContext) async throws -> CommandResult
}

extension RetimeCommand {
    static var reconcilesFirst: Bool { true }
    static var usesServices: Bool { true }
}

/// What a command hands back: its JSON document and its human text.
struct CommandResult {
    var json: JSONValue
    var human: String
    /// Output that is the same with or without `--json` (an export file),
    /// written as it is instead of `json` or `human`.
    var exported: String? = nil
    /// Like `exported`, but written in pieces as they are made, so that a
    /// large export is never held whole.
    var stream: (@Sendable (_ write: (String) -> Void) throws -> Void)? = nil

    static func ok(_ human: String) -> CommandResult { CommandResult(json: Documents.ok, human: human) }
}

/// What a running command may use: the container and the console.
struct CommandContext: Sendable {
    let container: Container
    let console: Console
    let style: Style
    let json: Bool
    let runtime: RuntimeContext

    func resolve<T: Sendable>(_ type: T.Type = T.self) throws -> T { try container.resolve(type) }

    var now: Date { get throws { try resolve((any Domain.Clock).self).now() } }

    /// A group's name by id, for showing sessions; nil if it was deleted.
    func groupName(_ id: GroupID) async throws -> String? {
        try await resolve((any GroupRepository).self).name(of: id)
    }
}
