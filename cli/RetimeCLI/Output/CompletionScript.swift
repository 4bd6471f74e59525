/// Shell completion scripts generated from the command tree: subcommands,
/// options, the choices of arguments and option values, and the user's own
/// group and schedule names (asked of `retime group list --names` when the
/// shell completes, so they are never stale).
enum CompletionScript {
    /// `--names` of `group list` and `schedule list`: one name a line, for
    /// scripts and for the completions to ask.
    static let namesFlag = OptionSpec.flag("names", help: "Only the names, one a line (for scripts and shell completion).")

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
        shell == "fish" ? fish(root) : bash(root, zsh: shell == "zsh")
    }

    /// bash, and zsh through its bash emulation (`bashcompinit`).
    private static func bash(_ root: CommandSpec, zsh: Bool) -> String {
        let commands = flatten(root)
        let known = commands.map { "\"\($0.0.joined(separator: " "))\"" }.filter { $0 != "\"\"" }.joined(separator: " ")
        // Per command, what names each positional argument takes ("-" for
        // none), so `group block work <TAB>` offers no group where a site goes.
        let cases = commands.map { path, command in
            let positions = command.arguments.map { $0.names?.rawValue ?? "-" }.joined(separator: " ")
            return "    \"\(path.joined(separator: " "))\") words=\"\(words(command).joined(separator: " "))\" positions=\"\(positions)\" ;;"
        }.joined(separator: "\n")
        // Options whose next word is their value, not an argument.
        let valued = Set(commands.flatMap { $0.1.options } + GlobalOptions.specs).filter(\.takesValue).map { "--\($0.name)" }.sorted()
        // After an option that takes a value, only that value is offered.
        let values = commands.flatMap { path, command in
            command.options.filter(\.takesValue).map { option in
                "    \"\(path.joined(separator: " ")) --\(option.name)\") words=\"\(option.choices.joined(separator: " "))\" names=\"\(option.names?.rawValue ?? "")\" ;;"
            }
        } + GlobalOptions.specs.filter(\.takesValue).map { option in
            option.name == "data-dir"
                ? "    *\" --data-dir\") COMPREPLY=( $(compgen -d -- \"$cur\") ); return ;;"
                : "    *\" --\(option.name)\") words=\"\(option.choices.joined(separator: " "))\" names=\"\" ;;"
        }
        let body = """
        _retime() {
          local cur prev path="" word candidate words="" names="" positions="" name extended
          local -a known=(\(known)) data=() kinds=()
          local valued=" \(valued.joined(separator: " ")) " i argument=0
          cur="${COMP_WORDS[COMP_CWORD]}"
          prev="${COMP_WORDS[COMP_CWORD-1]}"
          # The command's path, and how many arguments follow it.
          for ((i = 1; i < COMP_CWORD; i++)); do
            word="${COMP_WORDS[i]}" candidate="${path:+$path }${COMP_WORDS[i]}" extended=""
            for k in "${known[@]}"; do [[ "$k" == "$candidate" ]] && extended=1; done
            if [[ -n "$extended" ]]; then path="$candidate" argument=0
            elif [[ "$word" == -* ]]; then [[ "$valued" == *" $word "* ]] && ((i++))
            else ((argument++))
            fi
          done
          case "$path" in
        \(cases)
          esac
          # The names the argument at the cursor takes; the last repeats.
          kinds=($positions)
          if ((${#kinds[@]} > 0)); then
            name="${kinds[argument < ${#kinds[@]} ? argument : ${#kinds[@]} - 1]}"
            [[ "$name" != - ]] && names="$name"
          fi
          case "$path $prev" in
        \(values.joined(separator: "\n"))
          esac
          COMPREPLY=( $(compgen -W "$words" -- "$cur") )
          [[ -n "$names" ]] || return 0
          # Names come from the data the command line points at.
          for ((word = 1; word < COMP_CWORD; word++)); do
            [[ "${COMP_WORDS[word]}" == --data-dir ]] && data=(--data-dir "${COMP_WORDS[word+1]}")
          done
          while IFS= read -r name; do
            [[ "$name" == "$cur"* ]] && COMPREPLY+=( "$(printf '%q' "$name")" )
          done < <("${COMP_WORDS[0]}" "${data[@]}" "$names" list --names 2>/dev/null)
        }
        complete -F _retime retime
        """
        return zsh ? "autoload -U +X bashcompinit && bashcompinit\n" + body : body
    }

    private static func fish(_ root: CommandSpec) -> String {
        func names(_ kind: CompletedNames) -> String { "'(retime \(kind.rawValue) list --names 2>/dev/null)'" }
        var lines = ["complete -c retime -f"]
        for (path, command) in flatten(root) {
            let condition = path.isEmpty ? "__fish_use_subcommand"
                : "__fish_seen_subcommand_from \(path.last!)" + (path.count > 1 ? "; and __fish_seen_subcommand_from \(path[path.count - 2])" : "")
            for sub in command.subcommands {
                lines.append("complete -c retime -n '\(condition)' -a \(sub.name) -d '\(escape(sub.summary))'")
            }
            for option in command.options {
                lines.append("complete -c retime -n '\(condition)' -l \(option.name)" + valueFlags(option, names: names)
                             + " -d '\(escape(option.help))'")
            }
            for choice in command.arguments.flatMap(\.choices) {
                lines.append("complete -c retime -n '\(condition)' -a \(choice)")
            }
            for kind in Set(command.arguments.compactMap(\.names)).sorted(by: { $0.rawValue < $1.rawValue }) {
                lines.append("complete -c retime -n '\(condition)' -a \(names(kind))")
            }
        }
        for option in GlobalOptions.specs {
            lines.append("complete -c retime -l \(option.name)" + valueFlags(option, names: names) + " -d '\(escape(option.help))'")
        }
        return lines.joined(separator: "\n")
    }

    /// fish's flags for an option's value: its choices or names, or any file.
    private static func valueFlags(_ option: OptionSpec, names: (CompletedNames) -> String) -> String {
        guard option.takesValue else { return "" }
        if let kind = option.names { return " -x -a \(names(kind))" }
        if !option.choices.isEmpty { return " -x -a '\(option.choices.joined(separator: " "))'" }
        return " -r"
    }

    private static func escape(_ text: String) -> String { text.replacingAll("'", with: "\\'") }
}
