import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime log`: ended sessions, newest first, by day with each day's
/// total, as Watson's `log` and Timewarrior's `summary` show them. Without
/// --since, --until or --limit, a person sees the last 7 days (and is told
/// so); `--json` and `--csv` keep everything a script asks for.
struct LogCommand: RetimeCommand {
    static let spec = CommandSpec("log", summary: "List ended sessions, newest first, by day.",
                                  discussion: "Without --since, --until or --limit, the last 7 days (today and the 6 before); --json and --csv list every session.",
                                  options: [
        .value("since", "DATE", help: "From this date: YYYY-MM-DD, a date-time, today, yesterday or -Nd."),
        .value("until", "DATE", help: "Before this date (same forms)."),
        .value("group", "NAME", help: "Only this group's sessions.", names: .groups),
        .value("tag", "TAG", help: "Only sessions with this tag."),
        .value("limit", "N", help: "At most N sessions, the newest."),
        .flag("csv", help: "Comma-separated values with a header line."),
    ])

    let since: Date?, until: Date?, group: String?, tag: String?, limit: Int?, csv: Bool
    /// Local midnight six days ago: where a bare `log` on a terminal starts.
    let lastWeek: Date?

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        (since, until) = try values.range(parsed)
        group = parsed.value("group")
        tag = parsed.value("tag")
        if let text = parsed.value("limit") {
            guard let number = Int(text), number >= 0 else {
                throw UsageError(.invalidValue, "invalid number '\(text)' for --limit", hint: "give a whole number, 0 or more",
                                 command: parsed.commandName)
            }
            limit = number
        } else {
            limit = nil
        }
        csv = parsed.flag("csv")
        lastWeek = try? values.date("-\(Self.windowDays - 1)d", option: "since")
    }

    static let windowDays = 7

    struct Services: CommandServices {
        @Resolved var log: SessionLogUseCase
        @Resolved var allowances: any AllowanceLedger
        @Resolved var groups: any GroupRepository
        @Resolved var devices: any DeviceDirectory
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let windowed = !io.json && !csv && since == nil && until == nil && limit == nil && lastWeek != nil
        let log = try await services.log.execute(since: windowed ? lastWeek : since, until: until, groupNamed: group, tag: tag, limit: limit)
        // What was spent of allowances, per day: a day's lines of their own
        // after the sessions (none when nothing was spent).
        let spent = try await AllowanceSpent.days(try await services.allowances.allSpending(), names: { try await services.groups.names() },
                                                  since: windowed ? lastWeek : since, until: until)
        // Each device's name read once (a session names the device it was
        // started on; history written before sessions did has none).
        var deviceNames: [String: String?] = [:]
        let json = Documents.document(["sessions": .array(log.sessions.map { session in
            let deviceName = session.device.flatMap { device in
                if let known = deviceNames[device] { return known }
                let name = services.devices.name(of: device)
                deviceNames[device] = name
                return name
            }
            return Documents.session(session, groupName: log.groupName(of: session), at: log.readAt, deviceName: deviceName)
        }), "allowanceSpent": AllowanceSpent.json(spent)])
        var human = csv ? CSVTable.sessions(log.sessions, names: log.groupNames, now: log.readAt) : table(log, style: io.style)
        if windowed {
            human = log.sessions.isEmpty ? "No sessions in the last \(Self.windowDays) days; --since DATE or --limit N shows older ones."
                : human + "\n" + io.style.dim("The last \(Self.windowDays) days; --since DATE or --limit N shows more.")
        }
        if !csv, !spent.isEmpty { human += "\n\n" + AllowanceSpent.render(spent) }
        var result = CommandResult(json: json, human: human)
        result.pageable = !csv
        return result
    }

    /// Days, newest first, each with its total focused time, then its
    /// sessions: id, start-end (local), focused time, group, outcome, tags
    /// and the note's first line.
    private func table(_ log: SessionLogUseCase.Log, style: Style) -> String {
        let sessions = log.sessions, now = log.readAt
        guard !sessions.isEmpty else { return "No sessions." }
        // The name its group had when it ran, with the name it has now
        // beside it where that differs (cli.md, "History").
        let name = { (session: Session) -> String in
            let base = log.groupName(of: session) ?? "(deleted group)"
            if log.groupDeleted(session), log.groupName(of: session) != nil { return base + " (deleted)" }
            return log.currentGroupName(of: session).map { base + " (now \($0))" } ?? base
        }
        // Group names differ in length: pad them so the outcomes line up.
        let width = sessions.lazy.map { DisplayWidth.of(name($0)) }.max() ?? 0
        let timesWidth = sessions.lazy.map { Self.times($0, now: now).count }.max() ?? 0
        var days: [(day: String, sessions: [Session])] = []
        for session in sessions {
            let day = String(LocalTime.dateTime(session.startedAt).prefix(10))
            if days.last?.day == day { days[days.count - 1].sessions.append(session) } else { days.append((day, [session])) }
        }
        var lines: [String] = []
        for (index, entry) in days.enumerated() {
            let total = entry.sessions.reduce(0) { $0 + $1.focused(at: now) }
            let count = entry.sessions.count
            if index > 0 { lines.append("") }
            lines.append(style.bold("\(ReportChart.weekday(entry.day)) \(entry.day)") + "  "
                         + style.dim("\(DurationValue.format(total)) in \(count) session\(count == 1 ? "" : "s")"))
            for session in entry.sessions {
                let group = DisplayWidth.pad(name(session), to: width)
                let outcome = (session.endedAsPlanned ? style.green("completed") : style.yellow(session.outcome.rawValue))
                    + (session.origin == .manual ? "" : "  " + style.dim("(\(session.origin))"))
                let tags = session.tags.isEmpty ? "" : "  " + style.dim(session.tags.map(Self.tag).joined(separator: " "))
                // A note's first line, as `git log --oneline` shows a message's.
                let note = session.note.flatMap { $0.split(separator: "\n").first }.map { "  " + style.dim("— \($0)") } ?? ""
                let focused = DisplayWidth.pad(DurationValue.format(session.focused(at: now)), to: 9)
                // The short id names it to edit, delete and continue, as git's does a commit.
                lines.append("  \(style.dim(String(session.id.description.prefix(8))))  \(DisplayWidth.pad(Self.times(session, now: now), to: timesWidth))  \(focused) \(group)  \(outcome)\(tags)\(note)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `09:00-10:30`, local; an end on a later day says how many (`23:30-00:15+1`).
    static func times(_ session: Session, now: Date) -> String {
        let end = session.endedAt ?? now
        let from = LocalTime.dateTime(session.startedAt), to = LocalTime.dateTime(end)
        let days = (dayNumber(to.prefix(10)) ?? 0) - (dayNumber(from.prefix(10)) ?? 0)
        return "\(from.suffix(5))-\(to.suffix(5))" + (days > 0 ? "+\(days)" : "")
    }

    private static func dayNumber(_ key: Substring) -> Int64? {
        let parts = key.split(separator: "-").compactMap { Int($0) }
        return parts.count == 3 ? LocalDays.day(year: parts[0], month: parts[1], day: parts[2]) : nil
    }

    /// `#deep`, or `#"two words"` so that a tag with a space reads as one.
    static func tag(_ tag: String) -> String {
        tag.contains(where: \.isWhitespace) ? "#\"\(tag)\"" : "#\(tag)"
    }
}
