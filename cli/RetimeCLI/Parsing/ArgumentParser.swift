/// Matches a command line against the command tree. Global options may stand
/// anywhere before `--`; `--opt=value` and `--opt value` are both read; every
/// mistake is a `UsageError` with a "did you mean" where one is close.
public struct ArgumentParser: Sendable {
    public let root: CommandSpec

    public init(root: CommandSpec) {
        self.root = root
    }

    public func parse(_ tokens: [String]) throws(UsageError) -> ParsedCommand {
        var parsed = ParsedCommand(path: [])
        var command = root
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") || Self.isNumber(token) {
                if !optionsEnded, positionals.isEmpty, !command.subcommands.isEmpty {
                    guard let next = command.subcommand(named: token) else {
                        throw unknownCommand(token, in: command, path: parsed.path)
                    }
                    command = next
                    parsed.path.append(token)
                } else {
                    positionals.append(token)
                }
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            if token == "-h" { parsed.wantsHelp = true; continue }
            guard token.hasPrefix("--") else {
                throw UsageError(.unknownOption, "unknown option '\(token)'", hint: "options are written --name; see --help",
                                 command: parsed.commandName)
            }
            let body = token.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = (GlobalOptions.specs + command.options).first(where: { $0.name == name }) else {
                let known = (GlobalOptions.specs + command.options).map(\.name)
                throw UsageError(.unknownOption, "unknown option '--\(name)' for '\(parsed.commandName)'",
                                 hint: Suggestion.closest(to: name, among: known).map { "did you mean '--\($0)'?" },
                                 command: parsed.commandName)
            }
            var value: String?
            if spec.takesValue {
                if let inline {
                    value = inline
                } else if index < tokens.count, !(tokens[index].hasPrefix("--") && tokens[index].count > 2) {
                    // A following option is not a value: `--for --json` lacks one
                    // (write `--note=--text` for a value that starts with --).
                    value = tokens[index]
                    index += 1
                    // `--from 2026-11-20 09:00` or `--from yesterday 14:00`
                    // unquoted: a date and a time in two words are one
                    // WHEN or DATE (nothing else of the command looks so).
                    if ["WHEN", "DATE"].contains(spec.valueName), index < tokens.count, let first = value,
                       Self.isDay(first), Self.isClockTime(tokens[index]) {
                        value = first + " " + tokens[index]
                        index += 1
                    }
                } else {
                    throw UsageError(.missingValue, "option '--\(name)' needs a value (\(spec.valueName ?? "VALUE"))",
                                     command: parsed.commandName)
                }
            } else if inline != nil {
                throw UsageError(.invalidValue, "option '--\(name)' takes no value", command: parsed.commandName)
            }
            try apply(spec, value: value, to: &parsed)
        }

        guard !parsed.wantsHelp, !parsed.globals.version else { return parsed }
        if !command.subcommands.isEmpty && !parsed.path.isEmpty {
            let names = command.subcommands.map(\.name).joined(separator: ", ")
            throw UsageError(.missingArgument, "'\(parsed.commandName)' needs a subcommand: \(names)",
                             command: parsed.commandName)
        }
        parsed.arguments = try assign(positionals, to: command, name: parsed.commandName)
        return parsed
    }

    /// The command at `path`, if the tree has one.
    public func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path {
            guard let next = command.subcommand(named: name) else { return nil }
            command = next
        }
        return command
    }

    private func apply(_ spec: OptionSpec, value: String?, to parsed: inout ParsedCommand) throws(UsageError) {
        switch spec.name {
        case "data-dir":
            // An empty path is a script's unset variable, not a wish for the
            // default: falling back would act on the user's real data.
            guard value?.isEmpty == false else {
                throw UsageError(.invalidValue, "option '--data-dir' needs a path, not an empty string", command: parsed.commandName)
            }
            parsed.globals.dataDirectory = value
        case "json": parsed.globals.json = true
        case "log-level": parsed.globals.logLevel = value
        case "no-color": parsed.globals.noColor = true
        case "help": parsed.wantsHelp = true
        case "version": parsed.globals.version = true
        default:
            if let value {
                parsed.values[spec.name, default: []].append(value)
            } else {
                parsed.flags.insert(spec.name)
            }
        }
    }

    private func assign(_ positionals: [String], to command: CommandSpec, name: String) throws(UsageError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var rest = positionals[...]
        for argument in command.arguments {
            if argument.variadic {
                if rest.isEmpty && !argument.optional {
                    throw UsageError(.missingArgument, "'\(name)' needs at least one \(argument.name)", command: name)
                }
                result[argument.name] = Array(rest)
                rest = []
            } else if let first = rest.first {
                result[argument.name] = [first]
                rest = rest.dropFirst()
            } else if !argument.optional {
                throw UsageError(.missingArgument, "'\(name)' needs \(argument.name)", command: name)
            }
        }
        if let extra = rest.first {
            throw UsageError(.unexpectedArgument, "unexpected argument '\(extra)' for '\(name)'", command: name)
        }
        return result
    }

    private func unknownCommand(_ word: String, in command: CommandSpec, path: [String]) -> UsageError {
        let where_ = (["retime"] + path).joined(separator: " ")
        let suggestion = Suggestion.closest(to: word, among: command.subcommands.map(\.name))
        return UsageError(.unknownCommand, "unknown command '\(word)' for '\(where_)'",
                          hint: suggestion.map { "did you mean '\(($0))'?" } ?? "see '\(where_) --help'", command: where_)
    }

    /// `-5` or `-1.5` are values, not options.
    private static func isNumber(_ token: String) -> Bool {
        token.count > 1 && token.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
    }

    /// `YYYY-MM-DD`, `today` or `yesterday`.
    static func isDay(_ text: String) -> Bool {
        ["today", "yesterday"].contains(text.lowercased()) || text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil
    }

    /// `HH:MM` or `HH:MM:SS`.
    static func isClockTime(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{1,2}:\d{2}(:\d{2})?/) != nil
    }
}
