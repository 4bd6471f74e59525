import Domain
import FoundationEssentials
import JSONDocument
#if canImport(Glibc)
import Glibc
#endif

/// `retime status [--watch | --follow]`: the active session, and whether
/// the daemon runs; or, followed, one line per change for a status bar.
struct StatusCommand: RetimeCommand {
    static let reconciliation = Reconciliation.byUseCase
    static let spec = CommandSpec("status", summary: "Show the active session and whether the daemon runs.",
                                  options: [.flag("watch", help: "Redraw once a second until the session ends (or Ctrl-C)."),
                                            .flag("follow", help: "Print one line per change (start, pause, end) and every --interval while a session runs, for status bars; runs until stopped."),
                                            .value("format", "FORMAT", help: "With --follow: plain (default), json, waybar or i3blocks.",
                                                   choices: StatusLineFormat.allCases.map(\.rawValue)),
                                            .value("interval", "DURATION", help: "With --follow: how often a running session's line is printed again (default 1m, at least 1s).")])
    let watch: Bool
    /// Set by `--follow`.
    let follow: StatusFollower?

    init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
        watch = parsed.flag("watch")
        follow = try StatusFollower(parsed)
        if watch, follow != nil { throw UsageError(.invalidValue, "give --watch or --follow, not both", command: parsed.commandName) }
    }

    struct Services: CommandServices {
        @Resolved var status: SessionStatusUseCase
        @Resolved var daemon: any DaemonPresence
        @Resolved var clock: any RetimeShared.Clock
        @Resolved var follow: FollowSignals
    }

    func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
        if let follow { try await follow.run(services, io) { Self.document($0, daemonPID: services.daemon.running()?.pid) } }
        let status = try await services.status.execute()
        let pid = services.daemon.running()?.pid
        let json = Self.document(status, daemonPID: pid)
        if watch, !io.json, status != nil { return CommandResult(json: json, human: try await watchLoop(services, io)) }
        return CommandResult(json: json, human: render(status, daemonPID: pid, now: services.clock.now(), io: io))
    }

    /// The `status --json` document.
    static func document(_ status: SessionStatus?, daemonPID pid: Int32?) -> JSONValue {
        Documents.document([
            "active": .bool(status != nil),
            "session": status.map { Documents.status($0, groupName: $0.groupName) } ?? .null,
            "daemon": .object(["running": .bool(pid != nil), "pid": pid.map { .int(Int64($0)) } ?? .null]),
            "allowance": status.flatMap { status in
                status.allowanceEndsAt.map {
                    AllowanceCommands.allowance(group: status.groupName ?? status.session.groupId.description, endsAt: $0, left: status.allowanceLeftToday ?? 0)
                }
            } ?? .null,
        ])
    }

    private func render(_ status: SessionStatus?, daemonPID: Int32?, now: Date, io: CommandIO) -> String {
        let style = io.style
        // The system service lifts the blocks it holds at their end itself;
        // without the daemon, only schedules and the records wait.
        let serviceHolds = status?.session.shield.map { $0.prefix { $0 != ":" } == "system" } == true && status?.serviceRemoved != true
        let daemon = daemonPID.map { "daemon: running (pid \($0))" }
            ?? (serviceHolds
                ? "daemon: not running. The system service lifts this session's block at its end itself; the session is"
                    + " recorded as ended when a retime command next runs, and schedules start only while 'retime daemon run' runs."
                : "daemon: not running. Sessions still end at their planned end (any retime command completes an expired one),"
                    + " but blocks are lifted on the second only while 'retime daemon run' runs.")
        let columns = io.console.proseColumns
        guard let status else { return "No session is active.\n" + style.dim(TextWrap.wrap(daemon, width: columns, indent: "        ")) }
        let session = status.session
        // Held by the boot-time clock, the session ends when its time has
        // really passed: that is `remaining` from the wall clock's now, not
        // the planned end the moved clock has already passed.
        // A session judged on another device's clock (this one's disagrees)
        // ends when this machine's clock reads its planned end less that.
        let ends = { (remaining: TimeInterval) in
            status.heldByBootClock ? now + remaining : status.plannedEnd!.addingTimeInterval(-(status.clockOffset ?? 0))
        }
        var lines = ["\(style.bold(status.groupName ?? "(deleted group)"))  \(DurationValue.format(status.elapsed)) elapsed"
            + (status.remaining.map { " · \(Self.countdown($0)) left · ends \(LocalTime.moment(ends($0), now: ends($0) - $0))" } ?? " · open-ended")]
        if let phase = session.cyclePhase, let cycle = session.cycle { lines.append(Self.phaseLine(phase, of: cycle, now: now, style: style)) }
        if status.heldByBootClock {
            lines.append(style.yellow("the wall clock was moved forward: this strict session ends when its time has really passed"))
        }
        if let progress = status.progress {
            let width = max(10, min(40, io.console.width - 8))
            lines.append(style.green(ProgressBar.render(progress, width: width)) + " \(Int((progress * 100).rounded(.down)))%")
        }
        // The default shield enforces nothing; whoever looks at a running
        // session must not think its sites are closed.
        let shield = status.shieldKind ?? "none"
        let enforced = shield == "none" ? style.yellow("none (records only, blocks nothing)") : shield
        lines.append("focused \(DurationValue.format(status.focused)) · strict: \(session.strict ? "yes" : "no") · paused: \(session.isPaused ? style.yellow("yes") : "no") · shield: \(enforced)")
        if let away = status.lastAway, let end = away.end {
            // On return: how long it counted out, and how to count it back.
            lines.append(style.yellow("away \(DurationValue.format(end.timeIntervalSince(away.start))) (\(away.reason.rawValue))")
                + " — 'retime keep-away' counts it as focused")
        }
        if status.asleep >= 1 {
            lines.append(style.dim("suspended \(DurationValue.format(status.asleep)): not focused time"))
        }
        if status.serviceRemoved {
            lines.append(style.yellow("the system service was removed (system uninstall), which lifted this session's block: nothing is blocked until it ends"))
        }
        if status.blockReleased {
            lines.append(style.yellow("root released this session's block: nothing is blocked until it ends"))
        }
        if let request = session.unlockRequest, let ends = status.unlockEndsAt {
            let verb = request.action == .stop ? "stops" : "pauses"
            lines.append(style.yellow("countdown: the session \(verb) in \(Self.countdown(max(0, ends.timeIntervalSince(now))))"
                + " (at \(LocalTime.moment(ends, now: now))) unless 'retime stop --withdraw'"))
        }
        if let ends = status.allowanceEndsAt {
            let left = status.allowanceLeftToday.map { "; \(DurationValue.format($0)) left today" } ?? ""
            lines.append(style.yellow("allowance: the block is lifted for \(Self.countdown(max(0, ends.timeIntervalSince(now))))"
                + " (until \(LocalTime.moment(ends, now: now)))\(left); 'retime allow --cancel' raises it now"))
        }
        if session.origin != .manual { lines.append(style.dim("started by \(session.origin)")) }
        // A session from another device sharing the data folder: say which,
        // so nobody takes it for one they started here.
        if status.startedElsewhere, let device = session.device {
            lines.append("started on another device: " + (status.deviceName.map { "\($0) (\(device.prefix(8)))" } ?? device))
            // Its clock and this one disagree: it is judged on that one's.
            if let offset = status.clockOffset {
                lines.append(style.yellow(ClockOffsetText.thisClock(offset) + ": this session ends by the clock of "
                    + (status.deviceName ?? "the device that started it") + ", not by this one"))
            }
        }
        lines.append(style.dim(TextWrap.wrap(daemon, width: columns, indent: "        ")))
        return lines.map { TextWrap.wrap($0, width: columns, indent: "  ") }.joined(separator: "\n")
    }

    /// Redraws a one-line status each second until the session ends.
    private func watchLoop(_ services: Services, _ io: CommandIO) async throws -> String {
        let clock = services.clock
        let redraw = io.console.isTerminal ? "\r\u{1B}[2K" : ""
        while let status = try await services.status.execute() {
            let name = status.groupName ?? "(deleted group)"
            var line = "\(name) · \(DurationValue.format(status.elapsed)) elapsed"
            if let remaining = status.remaining, let progress = status.progress {
                line += " · \(Self.countdown(remaining)) left " + ProgressBar.render(progress, width: 20)
            }
            if let phase = status.session.cyclePhase, let cycle = status.session.cycle {
                line += " · " + Self.phaseLine(phase, of: cycle, now: clock.now(), style: io.style)
            } else if status.session.isPaused { line += " · paused" }
            // One line, whatever the terminal's width: a line that wrapped
            // would leave a copy above it at every redraw.
            if io.console.isTerminal { line = DisplayWidth.truncate(line, to: io.console.width - 1) }
            io.console.writeOut(redraw + line + (io.console.isTerminal ? "" : "\n"))
            // Redraw as the session's next whole second passes, so that
            // elapsed and left tick together and always add up to its length.
            let started = status.session.startedAt
            let next = started.addingTimeInterval(clock.now().timeIntervalSince(started).rounded(.down) + 1)
            try await clock.sleep(until: min(next, status.plannedEnd ?? next))
        }
        return (io.console.isTerminal ? "\n" : "") + "The session has ended."
    }

    /// Time left as a countdown shows it: rounded up, so a session just
    /// started for 25m has 25m left, not 24m 59s, and 0s means it is over.
    static func countdown(_ remaining: TimeInterval) -> String {
        DurationValue.format(remaining.rounded(.up))
    }
}
