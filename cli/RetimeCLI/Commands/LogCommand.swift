import Domain
import Foundation

/// `retime log`: ended sessions, newest first.
struct LogCommand: RetimeCommand {
    static let spec = CommandSpec("log", summary: "List ended sessions, newest first.", options: [
        .value("since", "DATE", help: "From this date: YYYY-MM-DD, a date-time, today, yesterday or -Nd."),
        .value("until", "DATE", help: "Before this date (same forms)."),
        .value("group", "NAME", help: "Only this group's sessions.", names: .groups),
        .value("tag", "TAG", help: "Only sessions with this tag."),
        .value("limit", "N", help: "At most N sessions, the newest."),
        .flag("csv", help: "Comma-separated values with a header line."),
    ])

    let since: Date?, until: Date?, group: String?, tag: String?, limit: Int?, csv: Bool

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
    }

    struct Services: CommandServices {
        let log: SessionLogUseCase
        init(_ services: ServiceSource) throws { log = try services() }
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let log = try await services.log.execute(since: since, until: until, groupNamed: group, tag: tag, limit: limit)
        let json = Documents.document(["sessions": .array(log.sessions.map {
            Documents.session($0, groupName: log.groupName(of: $0), at: log.readAt)
        })])
        let human = csv ? CSVTable.sessions(log.sessions, names: log.groupNames, now: log.readAt) : table(log, style: io.style)
        return CommandResult(json: json, human: human)
    }

    private func table(_ log: SessionLogUseCase.Log, style: Style) -> String {
        let sessions = log.sessions, now = log.readAt
        guard !sessions.isEmpty else { return "No sessions." }
        // Its group by its name now, with the name it ran under where that
        // differs; a deleted group by its last name.
        let name = { (session: Session) -> String in
            let base = log.groupName(of: session) ?? "(deleted group)"
            if log.groupDeleted(session), log.groupName(of: session) != nil { return base + " (deleted)" }
            return log.formerGroupName(of: session).map { base + " (was \($0))" } ?? base
        }
        // Group names differ in length: pad them so the outcomes line up.
        let width = sessions.lazy.map { name($0).count }.max() ?? 0
        return sessions.map { session in
            let group = name(session) + String(repeating: " ", count: width - name(session).count)
            let outcome = (session.outcome == .completed ? style.green("completed") : style.yellow(session.outcome.rawValue))
                + (session.origin == .manual ? "" : "  " + style.dim("(\(session.origin))"))
            let tags = session.tags.isEmpty ? "" : "  " + style.dim(session.tags.map(Self.tag).joined(separator: " "))
            // A note's first line, as `git log --oneline` shows a message's.
            let note = session.note.flatMap { $0.split(separator: "\n").first }.map { "  " + style.dim("— \($0)") } ?? ""
            // The short id names it to edit, delete and continue, as git's does a commit.
            return "\(style.dim(String(session.id.description.prefix(8))))  \(LocalTime.dateTime(session.startedAt))  \(DurationValue.format(session.focused(at: now)).padding(toLength: 9, withPad: " ", startingAt: 0)) \(group)  \(outcome)\(tags)\(note)"
        }.joined(separator: "\n")
    }

    /// `#deep`, or `#"two words"` so that a tag with a space reads as one.
    static func tag(_ tag: String) -> String {
        tag.contains(where: \.isWhitespace) ? "#\"\(tag)\"" : "#\(tag)"
    }
}
