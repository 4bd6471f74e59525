import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime track | edit | delete | continue`: fixing and reusing history
/// (cli.md, "History"). SESSION is an id, 6+ characters of one, or `@N`.
enum HistoryEditCommands {
    static let sessionArgument = ArgumentSpec("SESSION", help: "An id, at least 6 characters of one, or @N (the Nth most recent).")

    /// Runs `amend`; an error about the times says how a bare time of day
    /// was read when it was read as yesterday's.
    static func sayingHowTimesWereRead<T>(_ readings: [String], _ amend: () async throws -> T) async throws -> T {
        do { return try await amend() } catch SessionError.invalidTimes(let why) where !readings.isEmpty {
            throw SessionError.invalidTimes(why + " (" + readings.joined(separator: "; ") + ")")
        }
    }

    static func reference(_ parsed: ParsedCommand, _ name: String = "SESSION") throws -> SessionReference {
        try SessionReference(parsing: parsed.argument(name) ?? "@1")
    }

    /// `a1b2c3d4 work 2026-11-20 09:00-10:30 (1h 30m)`; the end's date too
    /// when it is another day's.
    static func line(_ session: Session, group: String?, now: Date) -> String {
        let start = LocalTime.dateTime(session.startedAt)
        let end = session.endedAt.map(LocalTime.dateTime).map { $0.prefix(10) == start.prefix(10) ? "-" + $0.dropFirst(11) : " - " + $0 } ?? ""
        return "\(session.id.description.prefix(8)) \(group ?? "(deleted group)") \(start)\(end)"
            + " (\(DurationValue.format(session.focused(at: now))))"
    }

    /// An amending use case, with what its commands show beside the
    /// session: its group's name, at the clock's now.
    struct Amending<UseCase: Sendable>: CommandServices {
        @Resolved var amend: UseCase
        @Resolved var groups: any GroupRepository
        @Resolved var clock: any RetimeShared.Clock

        func result(_ verb: String, _ session: Session) async throws -> CommandResult {
            let name = try await groups.name(of: session.groupId)
            let now = clock.now()
            return CommandResult(json: SessionCommands.document(SessionReceipt(session: session, groupName: name), at: now),
                                 human: "\(verb) \(HistoryEditCommands.line(session, group: name, now: now)).")
        }
    }

    struct Track: RetimeCommand {
        static let spec = CommandSpec("track", summary: "Record a past session you did not run with retime.", options: [
            .value("from", "WHEN", help: "When it started: HH:MM (today, or yesterday if later), yesterday 14:00, 2026-11-20 09:00.",
                   required: true),
            .value("to", "WHEN", help: "When it ended (same forms).", required: true),
            .value("tag", "TAG", help: "A tag.", repeatable: true),
            .value("note", "TEXT", help: "A note."),
        ], arguments: [ArgumentSpec("GROUP", help: "The group it was on.", names: .groups)])
        let group: String, from: Date, to: Date, tags: [String], note: String?
        /// How surprising times were read, for an error about them.
        let readings: [String]
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            group = parsed.argument("GROUP") ?? ""
            guard let start = parsed.value("from"), let end = parsed.value("to") else {
                throw UsageError(.missingValue, "give --from WHEN and --to WHEN", command: parsed.commandName)
            }
            from = try values.past(start, option: "from")
            to = try values.past(end, option: "to")
            readings = [values.pastReading(start, option: "from"), values.pastReading(end, option: "to")].compactMap { $0 }
            tags = parsed.allValues("tag")
            note = parsed.value("note")
        }
        func run(_ services: Amending<TrackSessionUseCase>, _ io: CommandIO) async throws -> CommandResult {
            let session = try await HistoryEditCommands.sayingHowTimesWereRead(readings) {
                try await services.amend.execute(group: group, from: from, to: to, tags: tags, note: note)
            }
            return try await services.result("Tracked", session)
        }
    }

    struct Edit: RetimeCommand {
        static let spec = CommandSpec("edit", summary: "Change an ended session: its group, times, tags or note.", options: [
            .value("group", "NAME", help: "Move it to this group.", names: .groups),
            .value("from", "WHEN", help: "Its new start (as for track)."),
            .value("to", "WHEN", help: "Its new end (as for track)."),
            .value("tag", "TAG", help: "Add a tag.", repeatable: true),
            .value("untag", "TAG", help: "Remove a tag.", repeatable: true),
            .value("note", "TEXT", help: "Its new note."),
        ], arguments: [HistoryEditCommands.sessionArgument])
        let parsed: ParsedCommand
        let changes: EditSessionUseCase.Changes
        let readings: [String]
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            self.parsed = parsed
            changes = .init(group: parsed.value("group"), from: try parsed.value("from").map { text throws(UsageError) in try values.past(text, option: "from") },
                            to: try parsed.value("to").map { text throws(UsageError) in try values.past(text, option: "to") },
                            addTags: parsed.allValues("tag"), removeTags: parsed.allValues("untag"), note: parsed.value("note"))
            readings = ["from", "to"].compactMap { option in parsed.value(option).flatMap { values.pastReading($0, option: option) } }
        }
        func run(_ services: Amending<EditSessionUseCase>, _ io: CommandIO) async throws -> CommandResult {
            let reference = try HistoryEditCommands.reference(parsed)
            let (session, changed) = try await HistoryEditCommands.sayingHowTimesWereRead(readings) {
                try await services.amend.revise(reference, changes: changes)
            }
            return try await services.result(changed ? "Edited" : "Nothing to change:", session)
        }
    }

    struct Delete: RetimeCommand {
        static let spec = CommandSpec("delete", summary: "Remove an ended session from history.",
                                      arguments: [HistoryEditCommands.sessionArgument])
        let parsed: ParsedCommand
        init(_ parsed: ParsedCommand, values: DateValue) { self.parsed = parsed }
        func run(_ services: Amending<DeleteSessionUseCase>, _ io: CommandIO) async throws -> CommandResult {
            let session = try await services.amend.execute(try HistoryEditCommands.reference(parsed))
            return try await services.result("Deleted", session)
        }
    }

    struct Continue: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("continue", summary: "Start a new session like an ended one: its group, tags and note.",
                                      discussion: "Without SESSION, the most recent (@1). It lasts as long as that one was planned to, unless --for or --until says otherwise.",
                                      options: [
                                          .value("for", "DURATION", help: "How long: 90s, 25m, 1h30m or PT25M."),
                                          .value("until", "WHEN", help: "When it ends (as for start)."),
                                      ],
                                      arguments: [ArgumentSpec("SESSION", help: "An id, at least 6 characters of one, or @N (default @1).",
                                                               optional: true)])
        let parsed: ParsedCommand
        let length: SessionLength?
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            self.parsed = parsed
            length = try SessionCommands.Start.length(parsed, values: values)
        }
        struct Services: CommandServices {
            @Resolved var resume: ContinueSessionUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let (previous, started) = try await services.resume.execute(try HistoryEditCommands.reference(parsed), length: length)
            let session = started.session
            let name = started.groupName ?? "(deleted group)"
            let until = session.plannedEnd.map { " until \(LocalTime.moment($0, now: session.startedAt))" } ?? " (open-ended)"
            return CommandResult(json: SessionCommands.document(started, at: session.startedAt),
                                 human: "Continued \(previous.id.description.prefix(8)): a session on \(io.style.bold(name))\(until).")
        }
    }
}
