#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime export`: history (and, as iCalendar, the schedules) in a file
/// format others read.
struct ExportCommand: RetimeCommand {
    enum Format: String, CaseIterable { case json, csv, ics }

    static let spec = CommandSpec("export", summary: "Write history as JSON (for import --from retime), CSV or iCalendar.", options: [
        .value("format", "FORMAT", help: "json (default; lossless), csv, or ics (sessions and schedules, for calendar apps).",
               choices: ["json", "csv", "ics"]),
        .value("since", "DATE", help: "Sessions from this date: YYYY-MM-DD, a date-time, today, yesterday or -Nd."),
        .value("until", "DATE", help: "Sessions before this date (same forms)."),
    ])

    let format: Format, since: Date?, until: Date?

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        let text = parsed.value("format") ?? "json"
        guard let format = Format(rawValue: text.lowercased()) else {
            throw UsageError(.invalidValue, "invalid value '\(text)' for --format", hint: "give json, csv or ics", command: parsed.commandName)
        }
        if parsed.globals.json, format != .json {
            throw UsageError(.invalidValue, "--json exports JSON; it cannot be combined with --format \(format.rawValue)",
                             command: parsed.commandName)
        }
        self.format = format
        (since, until) = try values.range(parsed)
    }

    struct Services: CommandServices {
        @Resolved var export: ExportHistoryUseCase
        @Resolved var encoder: any BackupEncoder
        @Resolved var calendar: IntervalCalendar
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let backup = try await services.export.execute(since: since, until: until)
        let names = Dictionary(backup.groups.map { ($0.id, $0.name.rawValue) }, uniquingKeysWith: { first, _ in first })
        switch format {
        case .json:
            let encoder = services.encoder
            return CommandResult(json: Documents.ok, human: "", stream: { write in
                try encoder.write(backup) { write(String(decoding: $0, as: UTF8.self)) }
            })
        case .csv:
            return CommandResult(json: Documents.ok, human: "", exported: CSVTable.sessions(backup.sessions, names: names, now: backup.exportedAt) + "\n")
        case .ics:
            return CommandResult(json: Documents.ok, human: "", exported: ICalendar.document(
                sessions: backup.sessions, schedules: backup.schedules, groupNames: names, timeZone: services.calendar.timeZone,
                now: backup.exportedAt, version: RetimeCLI.version))
        }
    }
}

/// `retime import --from watson|timewarrior|retime PATH`.
struct ImportCommand: RetimeCommand {
    enum Source: String, CaseIterable { case watson, timewarrior, retime }

    static let spec = CommandSpec("import", summary: "Add another tool's history: Watson, Timewarrior or a retime export.",
                                  discussion: "Importing the same data again adds nothing. Projects (Watson) and first tags (Timewarrior, which lists tags in sorted order; --group or --group-tag-prefix say otherwise) become groups, created with no targets if missing. Lines that cannot be read are listed with their numbers and skipped, and the import then exits 1 (import.skipped) keeping what it imported; history already recorded is never changed.",
                                  options: [.value("from", "TOOL", help: "watson (a frames file), timewarrior (a data directory) or retime (an export file).",
                                                   choices: ["watson", "timewarrior", "retime"], required: true),
                                            .value("group", "NAME", help: "Timewarrior: every interval into this group; its tags stay tags."),
                                            .value("group-tag-prefix", "PREFIX",
                                                   help: "Timewarrior: the tag starting with PREFIX (e.g. project:) names the group, without it."),
                                            .value("untagged-group", "NAME",
                                                   help: "Timewarrior, with --group-tag-prefix: the group of an interval with no such tag (default timewarrior).")],
                                  arguments: [ArgumentSpec("PATH", help: "The file or directory to read.")])
    /// Inside the data lock, where it reads the slot (`ImportHistoryUseCase`).
    static let reconciliation = Reconciliation.byUseCase

    let source: Source, path: String

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        guard let text = parsed.value("from") else {
            throw UsageError(.missingValue, "give --from watson, timewarrior or retime", command: parsed.commandName)
        }
        guard let source = Source(rawValue: text.lowercased()) else {
            throw UsageError(.invalidValue, "invalid value '\(text)' for --from", hint: "give watson, timewarrior or retime",
                             command: parsed.commandName)
        }
        self.source = source
        path = parsed.argument("PATH") ?? ""
        let named = parsed.value("group"), prefix = parsed.value("group-tag-prefix"), untagged = parsed.value("untagged-group")
        if (named != nil || prefix != nil || untagged != nil) && source != .timewarrior {
            throw UsageError(.invalidValue, "--group, --group-tag-prefix and --untagged-group are for --from timewarrior",
                             hint: "Watson's projects and a backup's groups are their sessions' groups", command: parsed.commandName)
        }
        switch (named, prefix) {
        case (.some, .some):
            throw UsageError(.invalidValue, "give --group or --group-tag-prefix, not both", command: parsed.commandName)
        case (let name?, nil): grouping = .named(name)
        case (nil, let prefix?):
            guard !prefix.isEmpty else { throw UsageError(.invalidValue, "--group-tag-prefix needs a prefix", command: parsed.commandName) }
            grouping = .tagPrefix(prefix, fallback: untagged ?? ImportGrouping.untagged)
        case (nil, nil):
            guard untagged == nil else { throw UsageError(.invalidValue, "--untagged-group goes with --group-tag-prefix", command: parsed.commandName) }
            grouping = .firstTag
        }
    }

    let grouping: ImportGrouping

    struct Services: CommandServices {
        @Resolved var importer: ImportHistoryUseCase
        /// The readers of each tool's files, registered by the tool's name.
        @ResolvedEach var sources: [Source: any HistoryImportSource]
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let summary = try await services.importer.execute(from: services.sources[source]!, path: path, grouping: grouping, tool: source.rawValue)
        // Every entry read is imported, already in history, or skipped:
        // the three add up to what was read.
        let parts = [summary.restored > 0 ? "\(summary.restored) of them deleted here since an earlier import, brought back" : nil,
                     summary.updated > 0 ? "\(summary.updated) updated, changed in \(source.rawValue) since" : nil,
                     summary.alreadyPresent > 0 ? "\(summary.alreadyPresent) already in history" : nil,
                     summary.problems.isEmpty ? nil : "\(summary.problems.count) skipped"].compactMap { $0 }
        var lines = ["Imported \(summary.imported) of \(summary.read) \(summary.read == 1 ? "entry" : "entries") from \(source.rawValue)"
                     + (parts.isEmpty ? "." : " (" + parts.joined(separator: ", ") + ").")]
        if !summary.groupsCreated.isEmpty {
            // Thousands of Watson projects must not fill the terminal.
            let created = summary.groupsCreated, shown = created.prefix(10).map { "'\($0)'" }.joined(separator: ", ")
            lines.append("Created \(created.count) group\(created.count == 1 ? "" : "s"): " + shown
                         + (created.count > 10 ? " and \(created.count - 10) more (retime group list)." : "."))
        }
        if summary.schedulesRestored + summary.settingsRestored > 0 {
            lines.append("Restored \(summary.schedulesRestored) schedule\(summary.schedulesRestored == 1 ? "" : "s") and "
                         + "\(summary.settingsRestored) setting\(summary.settingsRestored == 1 ? "" : "s").")
        }
        if summary.gone > 0 {
            let one = summary.gone == 1
            lines.append("\(one ? "1 session" : "\(summary.gone) sessions") imported earlier from \(source.rawValue) "
                         + "\(one ? "is" : "are") no longer in its data (deleted or moved there): \(one ? "it stays" : "they stay") "
                         + "in history; 'retime delete' removes \(one ? "it" : "one").")
        }
        if !summary.problems.isEmpty {
            lines.append("Skipped \(summary.problems.count):")
            lines += summary.problems.prefix(50).map { "  " + $0.description }
            if summary.problems.count > 50 { lines.append("  ... and \(summary.problems.count - 50) more (see --json)") }
        }
        let json = Documents.document([
            "read": .int(Int64(summary.read)), "imported": .int(Int64(summary.imported)),
            "alreadyPresent": .int(Int64(summary.alreadyPresent)), "updated": .int(Int64(summary.updated)),
            "goneFromSource": .int(Int64(summary.gone)), "restored": .int(Int64(summary.restored)),
            "groupsCreated": .array(summary.groupsCreated.map(JSONValue.string)),
            "schedulesRestored": .int(Int64(summary.schedulesRestored)), "settingsRestored": .int(Int64(summary.settingsRestored)),
            "skipped": .array(summary.problems.map { .object(["line": .int(Int64($0.line)), "message": .string($0.message)]) }),
        ])
        guard summary.problems.isEmpty else {
            throw ImportSkipped(skipped: summary.problems.count, read: summary.read, report: Self.wrapped(lines, io), json: json)
        }
        return CommandResult(json: json, human: Self.wrapped(lines, io))
    }

    /// The summary's lines wrapped to the prose width, each continuation
    /// indented two past its line's own indent (a skipped entry's four).
    static func wrapped(_ lines: [String], _ io: CommandIO) -> String {
        lines.map { line in
            let indent = String(line.prefix { $0 == " " })
            let text = TextWrap.wrap(String(line.dropFirst(indent.count)), width: io.console.proseColumns - indent.count, indent: "  ")
            return text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

/// An import that skipped entries: what it imported stays, and it exits 1
/// so a script never takes a partial import for a whole one.
struct ImportSkipped: RetimeCLIError, ReportingError {
    var skipped: Int
    var read: Int
    var report: String
    var json: JSONValue
    var code: String { "import.skipped" }
    var exitCode: Int32 { 1 }
    var hint: String? { "the entries imported are kept; fix the lines listed and import again (what is already in history is not added twice)" }
    var description: String { "\(skipped) of \(read) \(read == 1 ? "entry was" : "entries were") skipped" }
}
