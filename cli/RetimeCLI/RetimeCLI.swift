import Adapters
import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The retime command line: parses, builds the services, completes an
/// expired session, runs the command and prints its result, mapping every
/// failure to one error line and the contract's exit code (0-4).
public enum RetimeCLI {
    public static let version = "0.5.0"

    /// Runs one invocation and returns its exit code.
    public static func run(_ arguments: [String], environment: [String: String], console: Console) async -> Int32 {
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
            let command = try type.init(parsed, values: DateValue(now: Date()))
            let context = try makeContext(parsed, services: type.usesServices, environment: environment, console: console)
            if type.reconcilesFirst { try await context.resolve(ReconcileSessionUseCase.self).execute() }
            let result = try await command.run(context)
            if let stream = result.stream {
                try stream(console.writeOut)
            } else if let exported = result.exported {
                console.writeOut(exported)
            } else {
                emit(result.json, human: result.human, json: json, console: console)
            }
            return 0
        } catch {
            return ErrorReport(error).print(json: json, console: console)
        }
    }

    private static func makeContext(_ parsed: ParsedCommand, services: Bool, environment: [String: String],
                                    console: Console) throws -> CommandContext {
        let data = RuntimeContext.dataDirectory(option: parsed.globals.dataDirectory, environment: environment)
        let store = JSONFileStore(directory: data + "/store")
        let runtime = RuntimeContext(dataDirectory: data, logLevel: try logLevel(parsed, environment, store: store),
                                     environment: environment, store: store)
        let colour = console.isTerminal && !parsed.globals.noColor && environment["NO_COLOR"] == nil
        let container = services ? try CLIRoot.container(runtime) : Container(Registry())
        return CommandContext(container: container, console: console, style: Style(enabled: colour),
                              json: parsed.globals.json, runtime: runtime)
    }

    /// `--log-level`, else `$RETIME_LOG_LEVEL`, else config `log.level`, else
    /// warning for the CLI and info for the daemon.
    private static func logLevel(_ parsed: ParsedCommand, _ environment: [String: String], store: JSONFileStore) throws -> LogLevel {
        if let text = parsed.globals.logLevel ?? environment["RETIME_LOG_LEVEL"] {
            guard let level = LogLevel(rawValue: text.lowercased()) else {
                throw UsageError(.invalidValue, "invalid log level '\(text)'",
                                 hint: "choose " + LogLevel.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return level
        }
        let configured = try? store.value(String.self, forKey: SettingKey.logLevel.rawValue, in: StoreSettings.suite)
        // The daemon under a service manager logs what it does (journald
        // keeps it); run by hand on a terminal, it stays quiet unless asked.
        let daemonUnattended = parsed.path == ["daemon", "run"] && isatty(STDERR_FILENO) != 1
        return configured.flatMap { LogLevel(rawValue: $0) } ?? (daemonUnattended ? .info : .warning)
    }

    private static func emit(_ document: JSONValue, human: String, json: Bool, console: Console) {
        if json {
            console.out(JSONWriter.write(document))
        } else if !human.isEmpty {
            console.out(human)
        }
    }
}
