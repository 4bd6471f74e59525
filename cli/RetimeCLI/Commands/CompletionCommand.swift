/// `retime completion bash|zsh|fish`: shell completion generated from the
/// command tree, so it never drifts from the parser.
struct CompletionCommand: RetimeCommand {
    static let spec = CommandSpec("completion", summary: "Print a shell completion script.",
                                  discussion: "bash: source <(retime completion bash)\nzsh:  source <(retime completion zsh)\nfish: retime completion fish | source",
                                  arguments: [ArgumentSpec("SHELL", help: "bash, zsh or fish.", choices: ["bash", "zsh", "fish"])])
    static let reconciliation = Reconciliation.never

    let shell: String
    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        shell = parsed.argument("SHELL") ?? ""
        guard Self.spec.arguments[0].choices.contains(shell) else {
            throw UsageError(.invalidValue, "unknown shell '\(shell)'", hint: "choose bash, zsh or fish", command: parsed.commandName)
        }
    }

    func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
        let script = CompletionScript.script(for: shell, root: CommandTree.root)
        return CommandResult(json: Documents.document(["shell": .string(shell), "script": .string(script)]), human: script)
    }
}

/// `retime help [COMMAND...]`.
struct HelpCommand: RetimeCommand {
    static let spec = CommandSpec("help", summary: "Show help for a command.",
                                  arguments: [ArgumentSpec("COMMAND", help: "The command, e.g. 'group create'.", optional: true, variadic: true)])
    static let reconciliation = Reconciliation.never

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

    func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
        let command = ArgumentParser(root: CommandTree.root).command(at: path)!
        let text = HelpRenderer.help(for: command, path: path)
        return CommandResult(json: Documents.document(["help": .string(text)]), human: text)
    }
}

/// `retime version`: what `--version` prints, for those who type it as a word.
struct VersionCommand: RetimeCommand {
    static let spec = CommandSpec("version", summary: "Print the version (as --version does).")
    static let reconciliation = Reconciliation.never
    init(_ parsed: ParsedCommand, values: DateValue) {}
    func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
        CommandResult(json: Documents.document(["version": .string(RetimeCLI.version)]), human: "retime \(RetimeCLI.version)")
    }
}
