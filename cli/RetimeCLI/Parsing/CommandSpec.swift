/// A command of the command tree, declared as data: its name, help, options
/// and arguments. Parsing, `--help`, `retime help`, "did you mean" and the
/// shell completions are all generated from this one tree, so they never drift.
public struct CommandSpec: Sendable {
    public var name: String
    public var summary: String
    public var discussion: String?
    public var options: [OptionSpec]
    public var arguments: [ArgumentSpec]
    public var subcommands: [CommandSpec]

    public init(_ name: String, summary: String, discussion: String? = nil, options: [OptionSpec] = [],
                arguments: [ArgumentSpec] = [], subcommands: [CommandSpec] = []) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
    }

    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// Names that shell completion offers from the user's own data, asked of
/// `retime group list --names` or `retime schedule list --names`.
public enum CompletedNames: String, Sendable, Hashable {
    case groups = "group"
    case schedules = "schedule"
}

/// An option: a flag (`--strict`) or one that takes a value (`--for 25m`).
public struct OptionSpec: Sendable, Hashable {
    public var name: String
    public var short: Character?
    /// The placeholder of the value, e.g. `DURATION`; nil for a flag.
    public var valueName: String?
    public var help: String
    /// Whether it may be given more than once (`--tag a --tag b`).
    public var repeatable: Bool
    /// Values offered by shell completion.
    public var choices: [String]
    /// Names from the user's data offered by shell completion.
    public var names: CompletedNames?
    /// Whether the command needs it (it checks that itself): usage lines
    /// show it without brackets.
    public var required = false

    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false, choices: [])
    }

    public static func value(_ name: String, _ valueName: String, help: String, repeatable: Bool = false,
                             choices: [String] = [], names: CompletedNames? = nil, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: nil, valueName: valueName, help: help, repeatable: repeatable, choices: choices, names: names,
                   required: required)
    }

    public var takesValue: Bool { valueName != nil }

    /// `--for DURATION` or `--strict`, as help shows it.
    public var synopsis: String {
        "--\(name)" + (valueName.map { " \($0)" } ?? "") + (repeatable ? "..." : "")
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable, Hashable {
    public var name: String
    public var help: String
    public var optional: Bool
    /// Takes every remaining positional (`TARGET...`).
    public var variadic: Bool
    public var choices: [String]
    /// Names from the user's data offered by shell completion.
    public var names: CompletedNames?

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false, choices: [String] = [],
                names: CompletedNames? = nil) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
        self.choices = choices
        self.names = names
    }

    public var synopsis: String {
        let base = name + (variadic ? "..." : "")
        return optional ? "[\(base)]" : base
    }
}
