/// `retime man`: the manual page, in roff, written from the command tree as
/// docs/cli.md is, so it never drifts from the parser. Installed with
/// `retime man > ~/.local/share/man/man1/retime.1` (see README).
enum ManPage {
    static func render(root: CommandSpec, version: String) -> String {
        var lines = [
            #".TH RETIME 1 "" "retime \#(escape(version))" "User Commands""#,
            ".SH NAME", #"retime \- \#(escape(root.summary.replacingAll("retime: ", with: "")))"#,
            ".SH SYNOPSIS", ".B retime", #".I COMMAND"#, #"[\fIOPTIONS\fR]"#,
            ".SH DESCRIPTION",
            escape("A user groups what distracts them, starts a focus session, and retime keeps the block up until the end, "
                   + "on the second. A user daemon runs schedules; a root system service holds blocks the blocked user "
                   + "cannot lift early; history becomes reports people can read, fix and carry."),
            ".SH COMMANDS",
        ]
        for (path, command) in leaves(of: root, path: []) {
            lines.append(".SS " + escape(HelpRenderer.usage(for: command, path: path)))
            lines.append(escape(command.summary))
            if let discussion = command.discussion { lines += [".PP", escape(discussion)] }
            for argument in command.arguments { lines += [".TP", #".I "# + escape(argument.synopsis), escape(argument.help)] }
            for spec in command.options { lines += [".TP", Self.option(spec), escape(spec.help)] }
        }
        lines.append(".SH GLOBAL OPTIONS")
        for global in GlobalOptions.specs {
            lines += [".TP", (global.short.map { #"\fB\-\#($0)\fR, "# } ?? "") + Self.option(global), escape(global.help)]
        }
        lines += [
            ".SH EXIT STATUS",
            ".TP", ".B 0", "success",
            ".TP", ".B 1", "the operation failed for a domain reason (not found, already active, conflict, in use)",
            ".TP", ".B 2", "usage error: unknown command or option, missing or malformed value",
            ".TP", ".B 3", "authorization denied: passcode required or wrong, locked out, strict session",
            ".TP", ".B 4", "storage failure: data unreadable, corrupted, locked too long, not writable",
            ".SH ENVIRONMENT",
            ".TP", ".B RETIME_HOME", "The data directory (else $XDG_DATA_HOME/retime, else ~/.local/share/retime).",
            ".TP", ".B RETIME_LOG_LEVEL", "trace, debug, info, notice, warning, error or critical.",
            ".TP", ".B RETIME_SHIELD_SOCKET", "Where the system service listens (else /run/retime/shield.sock).",
            ".TP", ".B NO_COLOR", "No colour in the output.",
            ".TP", ".B TZ", "The time zone of local times, reports and schedules.",
            ".SH FILES",
            ".TP", ".I ~/.local/share/retime/", "Groups, the session, schedules and settings (store/), history (history/), hooks, logs.",
            ".TP", ".I /var/lib/retime/", "The system service's own state: the blocks it holds, each user's passcode hash.",
            ".SH SEE ALSO",
            escape("The docs/ directory of retime's sources: cli.md (this reference), shields.md, history.md, storage.md."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every command that runs, with its path, in the tree's order.
    static func leaves(of command: CommandSpec, path: [String]) -> [([String], CommandSpec)] {
        guard !command.subcommands.isEmpty else { return path.isEmpty ? [] : [(path, command)] }
        return command.subcommands.flatMap { leaves(of: $0, path: path + [$0.name]) }
    }

    private static func option(_ option: OptionSpec) -> String {
        #"\fB\-\-\#(escape(option.name))\fR"# + (option.valueName.map { #" \fI\#(escape($0))\fR"# } ?? "") + (option.repeatable ? "..." : "")
    }

    /// Text roff shows as written: backslashes doubled, a line's leading
    /// dot or quote neutralised, hyphens as hyphen-minus.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingAll(#"\"#, with: #"\e"#).replacingAll("-", with: #"\-"#)
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? #"\&"# + line : String(line)
        }.joined(separator: "\n")
    }
}
