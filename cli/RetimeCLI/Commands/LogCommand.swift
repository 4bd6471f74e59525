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
        let history: any SessionHistory
        let groups: any GroupRepository
        let clock: any Domain.Clock
        init(_ services: ServiceSource) throws {
            history = try services()
            groups = try services()
            clock = try services()
        }
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        let groupId = try await Self.groupId(named: group, groups: services.groups)
        let names = try await services.groups.names()
        let sessions = try await services.history.sessions(matching: HistoryQuery(since: since, until: until, groupId: groupId, tag: tag, limit: limit))
        let now = services.clock.now()
        let json = Documents.document(["sessions": .array(sessions.map { Documents.session($0, groupName: Self.groupName($0, names), at: now) })])
        let human = csv ? CSVTable.sessions(sessions, names: names, now: now) : table(sessions, names: names, now: now, style: io.style)
        return CommandResult(json: json, human: human)
    }

    private func table(_ sessions: [Session], names: [GroupID: String], now: Date, style: Style) -> String {
        guard !sessions.isEmpty else { return "No sessions." }
        let name = { (session: Session) in Self.groupName(session, names) ?? "(deleted group)" }
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

    /// The id of the group named `name` (nil for no filter); an unknown name is an error.
    static func groupId(named name: String?, groups: any GroupRepository) async throws -> GroupID? {
        guard let name else { return nil }
        guard let found = try await groups.id(named: name) else { throw GroupError.notFound(name: name) }
        return found
    }

    /// The name the session's group had when it ran, else (sessions recorded
    /// before sessions kept it) its name now.
    static func groupName(_ session: Session, _ names: [GroupID: String]) -> String? {
        session.groupName ?? names[session.groupId]
    }

    /// `#deep`, or `#"two words"` so that a tag with a space reads as one.
    static func tag(_ tag: String) -> String {
        tag.contains(where: \.isWhitespace) ? "#\"\(tag)\"" : "#\(tag)"
    }
}
