#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// The retime command line: parses, builds the services, completes an
/// expired session, runs the command and prints its result, mapping every
/// failure to one error line and the contract's exit code (0-4).
public enum RetimeCLI {
    public static let version = "0.5.0"

    /// Runs one invocation and returns its exit code. `exiting`: the
    /// process exits right after (the `retime` binary), so the services the
    /// command built are torn down but not freed (`KeptUntilExit`).
    public static func run(_ arguments: [String], environment: [String: String], console: Console, exiting: Bool = false) async -> Int32 {
        var json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            let parsed = try ArgumentParser(root: CommandTree.root).parse(arguments)
            json = parsed.globals.json
            if parsed.globals.version {
                emit(Documents.document(["version": .string(version)]), human: "retime \(version)", json: json, console: console)
                return 0
            }
            guard !parsed.wantsHelp, let type = CommandTree.leaves[parsed.path] else {
                let command = ArgumentParser(root: CommandTree.root).command(at: parsed.path) ?? CommandTree.root
                let text = HelpRenderer.help(for: command, path: parsed.path)
                emit(Documents.document(["help": .string(text)]), human: text, json: json, console: console)
                return 0
            }
            let result = try await execute(type, parsed, environment: environment, console: console, exiting: exiting)
            if let stream = result.stream {
                try stream(console.writeOut)
            } else if let exported = result.exported {
                console.writeOut(exported)
            } else if result.pageable, !json, ConsolePaging.show(result.human, console: console, environment: environment) {
                // Shown a screen at a time.
            } else {
                emit(result.json, human: result.human, json: json, console: console)
            }
            return 0
        } catch {
            return ErrorReport(error).print(json: json, console: console)
        }
    }

    /// Builds the command, then the services it declares (nothing for a
    /// command that declares none: help and completion touch no data), runs
    /// it, and tears down what was built, in reverse order.
    private static func execute<Command: RetimeCommand>(_ type: Command.Type, _ parsed: ParsedCommand, environment: [String: String],
                                                        console: Console, exiting: Bool) async throws -> CommandResult {
        let command = try Command(parsed, values: DateValue(now: Date(), lookingUp: { CLIRoot.localTimeZone(environment) }))
        let colour = console.isTerminal && !parsed.globals.noColor && environment["NO_COLOR"] == nil
        let io = CommandIO(console: console, style: Style(enabled: colour), json: parsed.globals.json)
        guard Command.Services.self != NoServices.self else {
            return try await command.run(Command.Services(), io)
        }
        let container = CLIRoot.container(try CLIRoot.runtime(parsed, environment: environment))
        if exiting { KeptUntilExit.keep(container) }
        do {
            if Command.reconciliation == .byRoot { _ = try await container.resolve(ActiveSession.self).reconcile() }
            let result = try await command.run(try ServiceSource(container: container).build(Command.Services.self), io)
            await container.teardown()
            return result
        } catch {
            await container.teardown()
            throw error
        }
    }

    private static func emit(_ document: JSONValue, human: String, json: Bool, console: Console) {
        if json {
            console.out(JSONWriter.write(document))
        } else if !human.isEmpty {
            console.out(human)
        }
    }
}
