/// Writes `--help` for any command of the tree, and the reference page.
enum HelpRenderer {
    /// `retime track --from WHEN --to WHEN [--tag TAG...] GROUP`.
    static func usage(for command: CommandSpec, path: [String]) -> String {
        var text = (["retime"] + path).joined(separator: " ")
        if !command.subcommands.isEmpty { text += " COMMAND" }
        for option in command.options { text += option.required ? " \(option.synopsis)" : " [\(option.synopsis)]" }
        for argument in command.arguments { text += " \(argument.synopsis)" }
        return text
    }

    static func help(for command: CommandSpec, path: [String]) -> String {
        let name = (["retime"] + path).joined(separator: " ")
        var text = "\(command.summary)\n\nUsage: \(usage(for: command, path: path))\n"
        if let discussion = command.discussion { text += "\n\(discussion)\n" }
        if !command.subcommands.isEmpty {
            text += "\nCommands:\n" + table(command.subcommands.map { ($0.name, $0.summary) })
        }
        if !command.arguments.isEmpty {
            text += "\nArguments:\n" + table(command.arguments.map { ($0.synopsis, $0.help) })
        }
        if !command.options.isEmpty {
            text += "\nOptions:\n" + table(command.options.map { ($0.synopsis, $0.help) })
        }
        text += "\nGlobal options:\n" + table(GlobalOptions.specs.map {
            (($0.short.map { "-\($0), " } ?? "") + $0.synopsis, $0.help)
        })
        if !command.subcommands.isEmpty { text += "\nRun '\(name) COMMAND --help' for a command's help.\n" }
        return text
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let width = min(28, rows.map(\.0.count).max() ?? 0)
        return rows.map { left, right in
            let pad = left.count < width ? String(repeating: " ", count: width - left.count) : ""
            return "  \(left)\(pad)  \(right)\n"
        }.joined()
    }
}
