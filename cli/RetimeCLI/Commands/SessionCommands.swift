#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime start | stop | pause | resume`: one focus session at a time.
enum SessionCommands {
    /// The `{"session": ...}` document of a session command, at `now`.
    static func document(_ receipt: SessionReceipt, at now: Date) -> JSONValue {
        Documents.document(["session": Documents.session(receipt.session, groupName: receipt.groupName, at: now)])
    }

    struct Start: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec(
            "start", summary: "Start a focus session on a group.",
            discussion: "Without GROUP, the group named by config key defaultGroup (default 'focus') is used, created empty on first use.\nWithout --for or --until the session is open-ended.",
            options: [
                .value("for", "DURATION", help: "How long: 90s, 25m, 1h30m or PT25M (1 s to 24 h)."),
                .value("until", "WHEN", help: "When it ends: HH:MM[:SS] (next occurrence), a local date-time YYYY-MM-DD HH:MM or an ISO-8601 one."),
                .value("cycle", "WORK/BREAK[/LONG]", help: "Focus cycles: work phases with breaks between, which lift the block (e.g. 25m/5m/15m); the session lasts N x WORK plus the breaks."),
                .value("rounds", "N", help: "How many work phases a --cycle runs (default 4); the long break follows every fourth."),
                .flag("flow", help: "Work until 'retime next', then a break of a fifth of it (config key flow.breakRatio)."),
                .flag("strict", help: "No stopping, pausing or weakening before the end."),
                .flag("create", help: "Create GROUP (empty) if it does not exist, without asking (for scripts)."),
                .value("at", "WHEN", help: "When it began, if earlier: 10m ago, HH:MM, a date-time (at most 24 h ago)."),
                .value("tag", "TAG", help: "A tag for the session's history.", repeatable: true),
                .value("note", "TEXT", help: "A note for the session's history."),
            ],
            arguments: [ArgumentSpec("GROUP", help: "The group to block.", optional: true, names: .groups)])

        let group: String?
        var plan: SessionPlan

        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            group = parsed.argument("GROUP")
            plan = SessionPlan(groupName: group ?? "", length: try Self.length(parsed, values: values) ?? .openEnded, strict: parsed.flag("strict"),
                               tags: parsed.allValues("tag"), note: parsed.value("note"))
            plan.createsGroup = parsed.flag("create")
            plan.cycle = try Self.cycle(parsed)
            plan.startAt = try parsed.value("at").map { text throws(UsageError) in try values.past(text, option: "at") }
        }

        struct Services: CommandServices {
            @Resolved var start: StartSessionUseCase
            /// Whether a passcode is set: a strict session says how it ends early.
            @Resolved var auth: AuthStatusUseCase
        }

        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let started: SessionReceipt
            do {
                started = try await services.start.execute(plan)
            } catch SessionError.groupNotFound(let name) where group != nil {
                // On a terminal, a group that does not exist yet is offered; a script gets the error.
                guard TerminalPrompt.confirm("No group named '\(name)'. Create it (empty) and start? [y/N] ") == true else {
                    throw SessionError.groupNotFound(name: name)
                }
                var plan = plan
                plan.createsGroup = true
                started = try await services.start.execute(plan)
            }
            let session = started.session, targets = started.targets ?? []
            let name = started.groupName ?? plan.groupName
            let length = session.cycle.map { Self.describe($0, of: session, group: io.style.bold(name)) } ?? session.plannedEnd.map {
                "a \(DurationValue.format($0.timeIntervalSince(session.startedAt))) session on \(io.style.bold(name)) until \(LocalTime.moment($0, now: session.startedAt))"
            } ?? "an open-ended session on \(io.style.bold(name))"
            let strict: String
            switch session.strict ? session.unlock ?? .passcode : nil {
            case nil: strict = ""
            // The rule it keeps for its whole life (config `unlock` as it started).
            case .delay(let seconds)?: strict = " It is strict: ending it early takes a \(DurationValue.format(seconds)) countdown ('retime stop')."
            case .typing(let count)?: strict = " It is strict: ending it early means typing back \(count) random characters."
            case .never?: strict = " It is strict: nothing ends it early."
            case .passcode?:
                let withPasscode = (try? await services.auth.execute())?.passcodeSet ?? false
                strict = withPasscode ? " It is strict: only your passcode ends it early." : " It is strict: it cannot be stopped before it ends."
            }
            let reach = started.reach ?? .recordsOnly
            var json = document(started, at: session.startedAt)
            if case .object(var members) = json, !reach.failing.isEmpty {
                members["shieldFailures"] = .array(reach.failing.map(JSONValue.string))
                json = .object(members)
            }
            let columns = io.console.proseColumns
            return CommandResult(json: json,
                                 human: TextWrap.wrap("Started \(length).\(Self.blocking(targets, group: name, reach: reach))\(strict)"
                                    + Self.failing(reach), width: columns))
        }

        /// `--for DURATION` or `--until WHEN` (not both); nil when neither is given.
        static func length(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) -> SessionLength? {
            switch (parsed.value("for"), parsed.value("until")) {
            case (.some, .some): throw UsageError(.invalidValue, "give --for or --until, not both", command: parsed.commandName)
            case (let duration?, nil): return .duration(try DurationValue.parse(duration, option: "for"))
            case (nil, let when?):
                let end = try values.when(when, option: "until")
                return values.isTimeOfDay(when) ? .untilTimeOfDay(end) : .until(end)
            case (nil, nil): return nil
            }
        }

        /// The shield's parts that do not enforce the block now: said on a
        /// line of its own, never left for the user to find out.
        static func failing(_ reach: ShieldReach) -> String {
            guard !reach.failing.isEmpty else { return "" }
            return "\nWarning: the block is held, but not every layer enforces it yet ("
                + reach.failing.joined(separator: "; ") + "); the system service keeps trying: see 'retime system status'."
        }

        /// What the session blocks, as the shield in force really does: a
        /// user who reads "blocking 2 targets" must not find them open.
        static func blocking(_ targets: [Target], group: String, reach: ShieldReach) -> String {
            guard !targets.isEmpty else {
                return " Nothing is blocked: \(group) has no targets yet (add them with 'retime group block \(GroupCommands.shellWord(group)) SITE')."
            }
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            let sites = targets.filter { if case .domain = $0 { true } else { false } }.count
            let apps = targets.count - sites
            if reach.recordsOnly {
                return " The 'none' shield only records its \(count(targets.count, "target")): nothing is blocked"
                    + " (to block, install the system service: 'sudo retime system install')."
            }
            switch reach.apps {
            case .unsupported where apps > 0:
                return " Blocking \(count(sites, "site")) (each with its www., not its other subdomains); the hosts shield cannot block \(count(apps, "app"))"
                    + " (the system service's app layer can: 'sudo retime system install')."
            case .layerOff where apps > 0:
                return " Blocking \(count(sites, "site")); the system service's app layer is off, so \(count(apps, "app")) \(apps == 1 ? "stays" : "stay") open."
            default:
                // What a site's block covers, as the shield in force does it.
                let all = sites == targets.count
                let covers = sites == 0 ? ""
                    : reach.subdomains ? (all ? ", each with its subdomains" : " (its sites with their subdomains)")
                    : all ? ", each with its www. (not its other subdomains)" : " (its sites with their www., not their other subdomains)"
                return " Blocking \(count(targets.count, sites == targets.count ? "site" : "target"))\(covers)."
            }
        }
    }

    struct Cancel: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("cancel", summary: "Discard the active session: its block is lifted and history does not keep it.",
                                      discussion: "As 'stop' ends it and keeps it. A strict session refuses until its planned end, unless a passcode is set and given with --passcode-stdin.",
                                      options: [PasscodeInput.overrideFlag])
        let passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { passcodeFromStdin = parsed.flag("passcode-stdin") }
        struct Services: CommandServices {
            @Resolved var cancel: CancelSessionUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let (cancelled, at) = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime cancel") {
                try await services.cancel.execute(passcode: $0)
            }
            let name = cancelled.groupName ?? "a deleted group"
            return CommandResult(json: document(cancelled, at: at),
                                 human: "Cancelled the session on \(io.style.bold(name)); history does not keep it.")
        }
    }

    struct Stop: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("stop", summary: "End the active session now.",
                                      discussion: "A strict session refuses until its planned end, unless config key unlock allows an early end: passcode (the default: a passcode set and given with --passcode-stdin), delay:DURATION (a countdown starts; the session stops when it runs out), typing:N (type N characters shown on the terminal back), never.",
                                      options: [PasscodeInput.overrideFlag,
                                                .value("at", "WHEN", help: "When it ended, if earlier: 10m ago, HH:MM, a date-time."),
                                                .flag("withdraw", help: "Cancel the countdown to end or pause a strict session early (unlock delay:DURATION).")])
        let passcodeFromStdin: Bool
        let at: Date?
        let withdraw: Bool
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            passcodeFromStdin = parsed.flag("passcode-stdin")
            at = try parsed.value("at").map { text throws(UsageError) in try values.past(text, option: "at") }
            withdraw = parsed.flag("withdraw")
            if withdraw, at != nil || passcodeFromStdin {
                throw UsageError(.invalidValue, "--withdraw takes no other option", command: "retime stop")
            }
        }
        struct Services: CommandServices {
            @Resolved var stop: StopSessionUseCase
            @Resolved var unlock: StrictUnlock
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            if withdraw {
                let going = try await services.unlock.withdraw()
                let now = Date()
                return CommandResult(json: Documents.document(["session": Documents.session(going, groupName: going.groupName, at: now)]),
                                     human: "Withdrawn: the countdown is cancelled and the session goes on.")
            }
            let stopped: SessionReceipt
            do {
                stopped = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime stop") { passcode in
                    try await UnlockInput.typingBack(command: "retime stop", unlock: services.unlock) { try await services.stop.execute(passcode: passcode, at: at, typed: $0) }
                }
            } catch SessionError.unlockCountdown(let action, let until, let started) {
                return SessionCommands.countdown(action, until: until, started: started)
            }
            let session = stopped.session
            let name = stopped.groupName ?? "a deleted group"
            let now = session.endedAt ?? session.startedAt
            return CommandResult(json: document(stopped, at: now),
                                 human: "Stopped the session on \(io.style.bold(name)) after \(DurationValue.format(session.elapsed(at: now))) (focused \(DurationValue.format(session.focused(at: now)))).")
        }
    }

    /// What `stop` or `pause` says when a countdown (`unlock delay:`) stands
    /// in for it: exit 0, the request is in hand.
    static func countdown(_ action: UnlockRequest.Action, until: Date, started: Bool) -> CommandResult {
        let verb = action == .stop ? "stops" : "pauses"
        let opening = started ? "Countdown started" : "A countdown is already running"
        return CommandResult(json: Documents.document(["unlock": .object([
                                "action": .string(action.rawValue), "endsAt": .string(Timestamp.format(until)), "started": .bool(started),
                             ])]),
                             human: "\(opening): the strict session \(verb) at \(LocalTime.moment(until, now: Date())) unless 'retime stop --withdraw'.")
    }

    struct Pause: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("pause", summary: "Take a break: lift the block; the planned end stays.",
                                      options: [PasscodeInput.overrideFlag])
        let passcodeFromStdin: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { passcodeFromStdin = parsed.flag("passcode-stdin") }
        struct Services: CommandServices {
            @Resolved var pause: PauseSessionUseCase
            @Resolved var unlock: StrictUnlock
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let paused: SessionReceipt
            do {
                paused = try await PasscodeInput.withOverride(passcodeFromStdin, command: "retime pause") { passcode in
                    try await UnlockInput.typingBack(command: "retime pause", unlock: services.unlock) { try await services.pause.execute(passcode: passcode, typed: $0) }
                }
            } catch SessionError.unlockCountdown(let action, let until, let started) {
                return SessionCommands.countdown(action, until: until, started: started)
            }
            let session = paused.session
            let pausedAt = session.breaks.last?.start ?? session.startedAt
            let end = session.plannedEnd.map { " The session still ends at \(LocalTime.moment($0, now: pausedAt))." } ?? ""
            return CommandResult(json: document(paused, at: pausedAt),
                                 human: "Paused: \(SessionCommands.blockWord(paused, up: false)) until 'retime resume'.\(end)")
        }
    }

    struct Resume: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("resume", summary: "End the break: raise the block again.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        struct Services: CommandServices {
            @Resolved var resume: ResumeSessionUseCase
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let resumed = try await services.resume.execute()
            let session = resumed.session
            return CommandResult(json: document(resumed, at: session.breaks.last?.end ?? session.startedAt),
                                 human: "Resumed: \(SessionCommands.blockWord(resumed, up: true)).")
        }
    }

    struct KeepAway: RetimeCommand {
        static let reconciliation = Reconciliation.byUseCase
        static let spec = CommandSpec("keep-away", summary: "Count the running session's last away time as focused: you were thinking, not away.",
                                      options: [.flag("all", help: "Keep every away stretch of the running session, not only the last.")])
        let all: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { all = parsed.flag("all") }
        struct Services: CommandServices {
            @Resolved var keep: KeepAwayUseCase
            @Resolved var clock: any RetimeShared.Clock
        }
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let kept = try await services.keep.execute(all: all)
            let session = kept.session
            return CommandResult(json: Documents.document([
                "sessionId": .string(session.id.description), "keptSeconds": .double(kept.seconds),
                "awaySeconds": .double(session.awayTime(at: services.clock.now())),
            ]), human: "Kept \(DurationValue.format(kept.seconds)) of away time as focused.")
        }
    }

    /// What a break or a resume did to the block, as the session's shield
    /// really does it: the `none` shield blocks nothing to lift or raise.
    static func blockWord(_ receipt: SessionReceipt, up: Bool) -> String {
        guard receipt.reach?.recordsOnly != true else {
            return up ? "the 'none' shield records the block again; nothing is blocked" : "the 'none' shield had blocked nothing"
        }
        return up ? "the block is up again" : "the block is lifted"
    }
}

/// Local wall-clock text for people (`TZ` honoured).
enum LocalTime {
    static func clock(_ date: Date) -> String {
        let text = Timestamp.format(date, offset: LocalOffset.seconds(at: date), fractionDigits: 0)
        return String(text.dropFirst(11).prefix(8))
    }

    static func dateTime(_ date: Date) -> String {
        let text = Timestamp.format(date, offset: LocalOffset.seconds(at: date), fractionDigits: 0)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// The clock time for an instant on the same local day as `now`, else
    /// the date and the clock time (`2026-11-23 09:00:00`).
    static func moment(_ date: Date, now: Date = Date()) -> String {
        let day = localDay(date)
        return day == localDay(now) ? clock(date) : day + " " + clock(date)
    }

    private static func localDay(_ date: Date) -> String {
        String(Timestamp.format(date, offset: LocalOffset.seconds(at: date), fractionDigits: 0).prefix(10))
    }
}
