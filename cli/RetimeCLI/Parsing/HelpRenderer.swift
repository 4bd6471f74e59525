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
        // Usage wraps under its first word after "Usage: retime".
        let usageLines = wrap(usage(for: command, path: path), width: columns - 7, keepingBrackets: true)
        var text = wrap(command.summary, width: columns).joined(separator: "\n") + "\n\nUsage: " + usageLines.joined(separator: "\n       ") + "\n"
        if let discussion = command.discussion {
            text += "\n" + discussion.split(separator: "\n").map { wrap(String($0), width: columns).joined(separator: "\n") }.joined(separator: "\n") + "\n"
        }
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

    /// The columns help fits in: an 80-column terminal's.
    static let columns = 80

    /// Two columns; the right one wrapped at word boundaries to fit
    /// `columns`, its continuation lines under its start. A left entry wider
    /// than the column gets its text on the lines below.
    private static func table(_ rows: [(String, String)]) -> String {
        let width = min(28, rows.map(\.0.count).max() ?? 0)
        let indent = 2 + width + 2
        return rows.map { left, right in
            let lines = wrap(right, width: columns - indent)
            let continuation = lines.dropFirst().map { String(repeating: " ", count: indent) + $0 + "\n" }.joined()
            guard left.count <= width else {
                return "  \(left)\n" + lines.map { String(repeating: " ", count: indent) + $0 + "\n" }.joined()
            }
            let pad = String(repeating: " ", count: width - left.count)
            return "  \(left)\(pad)  \(lines.first ?? "")\n" + continuation
        }.joined()
    }

    /// `text` in lines of at most `width` characters, broken between words
    /// (a word longer than a line stands alone).
    /// With `keepingBrackets`, an option in brackets (`[--tag TAG...]`)
    /// counts as one word: a usage line never breaks inside one.
    static func wrap(_ text: String, width: Int, keepingBrackets: Bool = false) -> [String] {
        var lines: [String] = [], line = "", lineWidth = 0
        for word in keepingBrackets ? bracketedWords(text) : text.split(separator: " ").map(String.init) {
            // The line's width is kept, not measured again at every word.
            let wordWidth = DisplayWidth.visible(word)
            if !line.isEmpty, lineWidth + 1 + wordWidth > width {
                lines.append(line)
                line = ""
            }
            lineWidth = line.isEmpty ? wordWidth : lineWidth + 1 + wordWidth
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + (line.isEmpty ? [] : [line])
    }

    /// `text` split at spaces outside brackets.
    private static func bracketedWords(_ text: String) -> [String] {
        var words: [String] = [], word = "", depth = 0
        for character in text {
            if character == "[" { depth += 1 } else if character == "]" { depth = max(0, depth - 1) }
            if character == " ", depth == 0 {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        return words + (word.isEmpty ? [] : [word])
    }
}
