#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime schedule ...`: recurring intervals that the daemon turns into sessions.
enum ScheduleCommands {
    static let spec = CommandSpec("schedule", summary: "Manage schedules: recurring intervals run by the daemon.",
                                  subcommands: [Add.spec, List.spec, Show.spec, Remove.spec, Enable.spec, Disable.spec, Next.spec])

    static let nameArgument = ArgumentSpec("NAME", help: "The schedule.", names: .schedules)

    static func document(_ schedule: Schedule, groupName: String?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(schedule.id.description), "name": .string(schedule.name),
            "group": groupName.map(JSONValue.string) ?? .null,
            "from": .string(schedule.from.description), "to": .string(schedule.to.description),
            "days": .array(schedule.orderedWeekdays.map { .string($0.rawValue) }),
            "warnSeconds": .double(schedule.warnSeconds), "strict": .bool(schedule.strict), "enabled": .bool(schedule.enabled),
        ]
        // Only a schedule with an allowance has it, as with a cycle: the
        // contract's shape otherwise.
        if let allowance = schedule.allowance { fields["allowanceSeconds"] = .int(Int64(allowance.rounded(.down))) }
        if let cycle = schedule.cycle {
            fields["cycle"] = .object(["work": cycle.work.map(JSONValue.double) ?? .null, "break": cycle.breakLength.map(JSONValue.double) ?? .null,
                                       "longBreak": cycle.longBreak.map(JSONValue.double) ?? .null])
        }
        // Only a strict schedule with a weakening waiting has it: the
        // contract's shape otherwise.
        if let pending = schedule.pending {
            fields["pending"] = .object(["change": .string(pending.kind.rawValue), "at": Documents.time(pending.effectiveAt)])
        }
        return .object(fields)
    }

    /// "removed after its next interval, at ..." for a change that waits.
    static func waiting(_ pending: PendingScheduleChange) -> String {
        "\(pending.kind == .remove ? "removed" : "disabled") after its next interval, at \(LocalTime.dateTime(pending.effectiveAt))"
    }

    static func human(_ schedule: Schedule, groupName: String?, style: Style) -> String {
        let days = schedule.weekdays.count == 7 ? "daily" : schedule.weekdays == Weekday.weekdays ? "weekdays"
            : schedule.orderedWeekdays.map(\.rawValue).joined(separator: ",")
        var text = "\(style.bold(schedule.name)): \(groupName ?? "(deleted group)") \(days) \(schedule.from)-\(schedule.to)"
        if schedule.warnSeconds > 0 { text += ", warn \(DurationValue.format(schedule.warnSeconds)) ahead" }
        if let cycle = schedule.cycle, let work = cycle.work, let pause = cycle.breakLength {
            text += ", cycles of \(DurationValue.format(work))/\(DurationValue.format(pause))"
                + (cycle.longBreak.flatMap { $0 == pause ? nil : "/" + DurationValue.format($0) } ?? "")
        }
        if let allowance = schedule.allowance { text += ", \(DurationValue.format(allowance)) allowed ('retime allow')" }
        if schedule.strict { text += ", strict" }
        if !schedule.enabled { text += style.dim(" (disabled)") }
        if let pending = schedule.pending { text += " (to be \(waiting(pending)))" }
        return text
    }

    /// The services of the commands that read schedules, with their groups' names.
    struct Reading: CommandServices {
        @Resolved var schedules: ListSchedulesUseCase
    }

    /// The services of the commands that change one.
    struct Changing: CommandServices {
        @Resolved var change: ChangeScheduleUseCase
    }

    struct Add: RetimeCommand {
        static let spec = CommandSpec(
            "add", summary: "Add a schedule.", discussion: "--to earlier than --from crosses midnight.",
            options: [
                .value("group", "GROUP", help: "The group its sessions block.", names: .groups, required: true),
                .value("from", "TIME", help: "Start, HH:MM[:SS] local time.", required: true),
                .value("to", "TIME", help: "End, HH:MM[:SS] local time.", required: true),
                .value("days", "DAYS", help: "daily (default), weekdays, weekends, or days and ranges: mon,wed,fri or mon-fri",
                       choices: ["daily", "weekdays", "weekends"]),
                .value("warn", "DURATION", help: "Warn this long before the start and the end."),
                .flag("strict", help: "Its sessions are strict."),
                .value("cycle", "WORK/BREAK[/LONG]", help: "Its sessions run focus cycles (e.g. 50m/10m): as many rounds as begin in the interval, the last working to its end."),
                .value("allowance", "DURATION", help: "Its sessions carry this daily allowance for the group ('retime allow'), in place of the group's own."),
            ],
            arguments: [ArgumentSpec("NAME", help: "The new schedule's name.")])

        var request: AddScheduleUseCase.Request

        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            func required(_ option: String) throws(UsageError) -> String {
                guard let value = parsed.value(option) else {
                    throw UsageError(.missingArgument, "'\(parsed.commandName)' needs --\(option)", command: parsed.commandName)
                }
                return value
            }
            request = AddScheduleUseCase.Request(
                name: parsed.argument("NAME") ?? "", groupName: try required("group"), from: try required("from"),
                to: try required("to"), days: parsed.value("days") ?? "daily",
                warnSeconds: try parsed.value("warn").map { text throws(UsageError) in try DurationValue.parse(text, option: "warn") } ?? 0,
                strict: parsed.flag("strict"),
                cycle: try parsed.value("cycle").map { text throws(UsageError) in
                    try SessionCommands.Start.fixedCycle(text, command: parsed.commandName)
                })
            request.allowance = try parsed.value("allowance").map { text throws(UsageError) in try DurationValue.parse(text, option: "allowance") }
        }

        struct Services: CommandServices {
            @Resolved var add: AddScheduleUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let added = try await services.add.execute(request)
            var members: [String: JSONValue] = ["schedule": ScheduleCommands.document(added.schedule, groupName: added.groupName)]
            if !added.warnings.isEmpty { members["warnings"] = .array(added.warnings.map(JSONValue.string)) }
            let columns = io.console.proseColumns
            let warnings = added.warnings.map { "\n" + TextWrap.wrap(io.style.yellow("Warning: ") + $0 + ".", width: columns, indent: "  ") }.joined()
            return CommandResult(json: Documents.document(members),
                                 human: "Added " + ScheduleCommands.human(added.schedule, groupName: added.groupName, style: io.style) + warnings)
        }
    }

    struct List: RetimeCommand {
        static let spec = CommandSpec("list", summary: "List the schedules.", options: [CompletionScript.namesFlag])
        let namesOnly: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { namesOnly = parsed.flag("names") }
        func run(_ services: ScheduleCommands.Reading, _ io: CommandIO) async throws -> CommandResult {
            let schedules = try await services.schedules.all()
            let human = namesOnly ? schedules.map(\.schedule.name).joined(separator: "\n")
                : schedules.isEmpty ? "No schedules yet: retime schedule add NAME --group GROUP --from 09:00 --to 12:00"
                : schedules.map { ScheduleCommands.human($0.schedule, groupName: $0.groupName, style: io.style) }.joined(separator: "\n")
            return CommandResult(json: Documents.document(["schedules": .array(schedules.map {
                ScheduleCommands.document($0.schedule, groupName: $0.groupName)
            })]), human: human)
        }
    }

    struct Show: RetimeCommand {
        static let spec = CommandSpec("show", summary: "Show one schedule.", arguments: [ScheduleCommands.nameArgument])
        let name: String
        init(_ parsed: ParsedCommand, values: DateValue) { name = parsed.argument("NAME") ?? "" }
        struct Services: CommandServices {
            @Resolved var schedules: ListSchedulesUseCase
            @Resolved var upcoming: UpcomingEventsUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let shown = try await services.schedules.named(name)
            // Its next start: the first of the coming events that is one
            // (a week of them covers the rarest schedule).
            let next = shown.schedule.enabled
                ? try await services.upcoming.execute(count: 64).first { $0.schedule.id == shown.schedule.id && $0.kind == .intervalDidStart }
                : nil
            var document = ScheduleCommands.document(shown.schedule, groupName: shown.groupName)
            if case .object(var members) = document {
                members["next"] = next.map { .object(["start": Documents.time($0.interval.start), "end": Documents.time($0.interval.end)]) } ?? .null
                document = .object(members)
            }
            let when = next.map { event -> String in
                let start = LocalTime.dateTime(event.interval.start), end = LocalTime.dateTime(event.interval.end)
                let to = start.prefix(10) == end.prefix(10) ? String(end.suffix(5)) : end
                return "\nnext: \(ReportChart.weekday(String(start.prefix(10)))) \(start) to \(to)"
            }
                ?? "\nnext: none\(shown.schedule.enabled ? "" : " (disabled)")"
            return CommandResult(json: Documents.document(["schedule": document]),
                                 human: ScheduleCommands.human(shown.schedule, groupName: shown.groupName, style: io.style) + when)
        }
    }

    struct Remove: RetimeCommand {
        static let spec = CommandSpec("remove", summary: "Remove a schedule.", discussion: ScheduleCommands.strictDiscussion,
                                      options: [ScheduleCommands.passcodeFlag], arguments: [ScheduleCommands.nameArgument])
        let name: String
        let passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) {
            name = parsed.argument("NAME") ?? ""
            passcodeFromStdin = parsed.flag("passcode-stdin")
        }
        func run(_ services: ScheduleCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let passcode = try PasscodeInput.override(passcodeFromStdin, command: "retime schedule remove")
            let schedule = try await services.change.remove(named: name, passcode: passcode)
            if let pending = schedule.pending { return .ok(ScheduleCommands.waitingNotice(schedule.name, pending, io.style)) }
            return .ok("Removed schedule \(io.style.bold(schedule.name)).")
        }
    }

    /// `enable` and `disable`: the same command, switched.
    struct Switch: Sendable {
        let enabled: Bool
        let name: String
        var passcodeFromStdin = false

        func run(_ services: ScheduleCommands.Changing, _ io: CommandIO) async throws -> CommandResult {
            let passcode = try PasscodeInput.override(passcodeFromStdin, command: "retime schedule disable")
            let schedule = try await services.change.setEnabled(enabled, named: name, passcode: passcode)
            if let pending = schedule.pending { return .ok(ScheduleCommands.waitingNotice(schedule.name, pending, io.style)) }
            return .ok("\(enabled ? "Enabled" : "Disabled") schedule \(io.style.bold(schedule.name)).")
        }
    }

    static let strictDiscussion = "A strict schedule that still runs is removed or disabled only after its next interval ends"
        + " (the change waits, shown by 'schedule list'; 'schedule enable' withdraws it), or at once with the passcode (--passcode-stdin)."

    static let passcodeFlag = OptionSpec.flag("passcode-stdin", help: "Read the passcode from one line on stdin to change a strict schedule now.")

    static func waitingNotice(_ name: String, _ pending: PendingScheduleChange, _ style: Style) -> String {
        "\(style.bold(name)) is a strict schedule: it will be \(waiting(pending)).\n"
            + "Until then it runs as before; 'retime schedule enable \(name)' withdraws this, --passcode-stdin makes it now."
    }

    struct Enable: RetimeCommand {
        static let spec = CommandSpec("enable", summary: "Turn a schedule on (withdrawing a removal or disabling that waits).",
                                      arguments: [ScheduleCommands.nameArgument])
        let command: Switch
        init(_ parsed: ParsedCommand, values: DateValue) { command = Switch(enabled: true, name: parsed.argument("NAME") ?? "") }
        func run(_ services: ScheduleCommands.Changing, _ io: CommandIO) async throws -> CommandResult { try await command.run(services, io) }
    }

    struct Disable: RetimeCommand {
        static let spec = CommandSpec("disable", summary: "Turn a schedule off.", discussion: ScheduleCommands.strictDiscussion,
                                      options: [ScheduleCommands.passcodeFlag], arguments: [ScheduleCommands.nameArgument])
        let command: Switch
        init(_ parsed: ParsedCommand, values: DateValue) {
            command = Switch(enabled: false, name: parsed.argument("NAME") ?? "", passcodeFromStdin: parsed.flag("passcode-stdin"))
        }
        func run(_ services: ScheduleCommands.Changing, _ io: CommandIO) async throws -> CommandResult { try await command.run(services, io) }
    }

    struct Next: RetimeCommand {
        static let spec = CommandSpec("next", summary: "List the coming interval events in time order.", options: [
            .value("count", "N", help: "How many events (default 10)."),
            .value("from", "WHEN", help: "From this time instead of now: HH:MM[:SS], YYYY-MM-DD HH:MM (local) or an ISO-8601 date-time."),
        ])
        let count: Int
        let from: Date?

        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            let text = parsed.value("count") ?? "10"
            guard let count = Int(text), (0...10_000).contains(count) else {
                throw UsageError(.invalidValue, "invalid number '\(text)' for --count", hint: "give a whole number from 0 to 10000",
                                 command: parsed.commandName)
            }
            self.count = count
            from = try parsed.value("from").map { text throws(UsageError) in try values.when(text, option: "from") }
        }

        struct Services: CommandServices {
            @Resolved var upcoming: UpcomingEventsUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let events = try await services.upcoming.execute(from: from, count: count)
            let json = Documents.document(["events": .array(events.map {
                .object(["schedule": .string($0.schedule.name), "event": .string($0.kind.rawValue), "at": Documents.time($0.at)])
            })])
            let human = events.isEmpty ? "No events: no enabled schedule." : events.map {
                "\(LocalTime.dateTime($0.at))\(LocalTime.clock($0.at).dropFirst(5))  \($0.schedule.name)  \(Self.words($0.kind))"
            }.joined(separator: "\n")
            return CommandResult(json: json, human: human)
        }

        /// The event as people say it; JSON keeps the spec's names.
        static func words(_ kind: IntervalEventKind) -> String {
            switch kind {
            case .intervalWillStartWarning: "starts soon (warning)"
            case .intervalDidStart: "starts"
            case .intervalWillEndWarning: "ends soon (warning)"
            case .intervalDidEnd: "ends"
            }
        }
    }
}
