/// A command line matched against the command tree: which command, and the
/// values of its options and arguments, still as text.
public struct ParsedCommand: Sendable, Equatable {
    /// The command's path below `retime`, e.g. `["group", "create"]`.
    public var path: [String]
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var arguments: [String: [String]] = [:]
    public var globals = GlobalOptions()
    /// `-h`/`--help` was given: show help for `path` instead of running it.
    public var wantsHelp = false

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func allValues(_ name: String) -> [String] { values[name] ?? [] }
    public func argument(_ name: String) -> String? { arguments[name]?.first }
    public func allArguments(_ name: String) -> [String] { arguments[name] ?? [] }
    public var commandName: String { (["retime"] + path).joined(separator: " ") }
}

/// The options every command accepts, before or after it.
public struct GlobalOptions: Sendable, Equatable {
    public var dataDirectory: String?
    public var json = false
    public var logLevel: String?
    public var noColor = false
    public var version = false

    public static let specs: [OptionSpec] = [
        .value("data-dir", "PATH", help: "Where all state lives (else $RETIME_HOME, $XDG_DATA_HOME/retime, ~/.local/share/retime)."),
        .flag("json", help: "Print exactly one JSON document on stdout."),
        .value("log-level", "LEVEL", help: "trace, debug, info, notice, warning, error or critical (else $RETIME_LOG_LEVEL).",
               choices: ["trace", "debug", "info", "notice", "warning", "error", "critical"]),
        .flag("no-color", help: "No colour (also when NO_COLOR is set or stdout is not a terminal)."),
        .flag("help", short: "h", help: "Show help for the command."),
        .flag("version", help: "Print the version."),
    ]
}
