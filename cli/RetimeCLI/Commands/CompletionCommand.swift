/// `retime completion bash|zsh|fish`: shell completion generated from the
/// command tree, so it never drifts from the parser.
struct CompletionCommand: RetimeCommand {
    static let spec = CommandSpec("completion", summary: "Print a shell completion script.",
                                  discussion: "bash: source <(retime completion bash)\nzsh:  source <(retime completion zsh)\nfish: retime completion fish | source",
                                  arguments: [ArgumentSpec("SHELL", help: "bash, zsh or fish.", choices: ["bash", "zsh", "fish"])])
    static let reconcilesFirst = false
    static let usesServices = false

    let shell: String
    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        shell = parsed.argument("SHELL") ?? ""
        guard Self.spec.arguments[0].choices.contains(shell) else {
            throw UsageError(.invalidValue, "unknown shell '\(shell)'", hint: "choose bash, zsh or fish", command: parsed.commandName)
        }
    }

    func run(_ context: CommandContext) async throws -> CommandResult {
        let script = Self.script(for: shell, root: CommandTree.root)
        return CommandResult(json: Documents.document(["shell": .string(shell), "script": .string(script)]), human: script)
    }

    /// Every command with its path below `retime`, root first.
    static func flatten(_ command: CommandSpec, path: [String] = []) -> [([String], CommandSpec)] {
        [(path, command)] + command.subcommands.flatMap { flatten($0, path: path + [$0.name]) }
    }

    /// The words offered after a command: subcommands, options, argument choices.
    static func words(_ command: CommandSpec) -> [String] {
        command.subcommands.map(\.name) + (command.options + GlobalOptions.specs).map { "--\($0.name)" }
            + command.arguments.flatMap(\.choices)
    }

    static func script(for shell: String, root: CommandSpec) -> String {
        let commands = flatten(root)
        switch shell {
        case "bash", "zsh":
            let cases = commands.map { path, command in
                "    \"\(path.joined(separator: " "))\") words=\"\(words(command).joined(separator: " "))\" ;;"
            }.joined(separator: "\n")
            let known = commands.map { "\"\($0.0.joined(separator: " "))\"" }.filter { $0 != "\"\"" }.joined(separator: " ")
            let body = """
            _retime() {
              local cur path="" word candidate words
              local -a known=(\(known))
              cur="${COMP_WORDS[COMP_CWORD]}"
              for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                candidate="${path:+$path }$word"
                for k in "${known[@]}"; do [[ "$k" == "$candidate" ]] && path="$candidate"; done
              done
              case "$path" in
            \(cases)
                *) words="" ;;
              esac
              COMPREPLY=( $(compgen -W "$words" -- "$cur") )
            }
            """
            if shell == "bash" { return body + "\ncomplete -F _retime retime" }
            return "autoload -U +X bashcompinit && bashcompinit\n" + body + "\ncomplete -F _retime retime"
        default:
            var lines = ["complete -c retime -f"]
            for (path, command) in commands {
                let condition = path.isEmpty ? "__fish_use_subcommand"
                    : "__fish_seen_subcommand_from \(path.last!)" + (path.count > 1 ? "; and __fish_seen_subcommand_from \(path[path.count - 2])" : "")
                for sub in command.subcommands {
                    lines.append("complete -c retime -n '\(condition)' -a \(sub.name) -d '\(escape(sub.summary))'")
                }
                for option in command.options {
                    lines.append("complete -c retime -n '\(condition)' -l \(option.name)" + (option.takesValue ? " -r" : "")
                                 + " -d '\(escape(option.help))'")
                }
                for choice in command.arguments.flatMap(\.choices) {
                    lines.append("complete -c retime -n '\(condition)' -a \(choice)")
                }
            }
            for option in GlobalOptions.specs {
                lines.append("complete -c retime -l \(option.name)" + (option.takesValue ? " -r" : "") + " -d '\(escape(option.help))'")
            }
            return lines.joined(separator: "\n")
        }
    }

    private static func escape(_ text: String) -> String { text.replacingOccurrences(of: "'", with: "\\'") }
}

/// `retime help [COMMAND...]`.
struct HelpCommand: RetimeCommand {
    static let spec = CommandSpec("help", summary: "Show help for a command.",
                                  arguments: [ArgumentSpec("COMMAND", help: "The command, e.g. 'group create'.", optional: true, variadic: true)])
    static let reconcilesFirst = false
    static let usesServices = false

    let path: [String]
    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        path = parsed.allArguments("COMMAND")
        let parser = ArgumentParser(root: CommandTree.root)
        guard parser.command(at: path) != nil else {
            // Suggest for the first word that is not known, among the
            // subcommands of the words before it (`help group craete`).
            let known = (0..<path.count).last { parser.command(at: Array(path.prefix($0))) != nil } ?? 0
            let names = parser.command(at: Array(path.prefix(known)))?.subcommands.map(\.name) ?? []
            let fix = Suggestion.closest(to: path[known], among: names)
            throw UsageError(.unknownCommand, "no help for unknown command '\(path.joined(separator: " "))'",
                             hint: fix.map { "did you mean '\((path.prefix(known) + [$0]).joined(separator: " "))'?" })
        }
    }

    func run(_ context: CommandContext) async throws -> CommandResult {
        let command = ArgumentParser(root: CommandTree.root).command(at: path)!
        let text = HelpRenderer.help(for: command, path: path)
        return CommandResult(json: Documents.document(["help": .string(text)]), human: text)
    }
}
