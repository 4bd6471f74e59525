import Domain
import FoundationEssentials
import JSONDocument

/// How `status --follow` waits between lines: the data folder's changes,
/// a set clock and its own deadlines (`WakeSignals`). Made only when a
/// follower starts, so a plain `status` opens no watcher.
struct FollowSignals: Sendable {
    let make: @Sendable () throws -> any WakeSignals
}

/// `status --follow`: one line when the state changes (a start, a pause, a
/// resume, an end, a session of another device), and every `interval`
/// while a session runs, each written at once. Between lines it sleeps on
/// the data folder's changes and the next line's instant (the interval, or
/// the session's end), as the daemon does: it never wakes more often than
/// it prints, but for a change of the data that leaves the line as it was.
struct StatusFollower: Sendable {
    let format: StatusLineFormat
    let interval: TimeInterval

    /// nil without `--follow`; `--format` and `--interval` need it.
    init?(_ parsed: ParsedCommand) throws(UsageError) {
        let formatText = parsed.value("format"), intervalText = parsed.value("interval")
        guard parsed.flag("follow") else {
            if formatText != nil || intervalText != nil {
                throw UsageError(.invalidValue, "--format and --interval go with --follow", hint: "retime status --follow --format waybar",
                                 command: parsed.commandName)
            }
            return nil
        }
        let fallback: StatusLineFormat = parsed.globals.json ? .json : .plain
        guard let format = formatText.map({ StatusLineFormat(rawValue: $0.lowercased()) }) ?? fallback else {
            throw UsageError(.invalidValue, "invalid value '\(formatText ?? "")' for --format", hint: "give plain, json, waybar or i3blocks",
                             command: parsed.commandName)
        }
        if parsed.globals.json, format != .json {
            throw UsageError(.invalidValue, "--json follows in JSON; it cannot be combined with --format \(format.rawValue)",
                             command: parsed.commandName)
        }
        let interval = try intervalText.map { text throws(UsageError) in try DurationValue.parse(text, option: "interval") } ?? 60
        guard interval >= 1 else {
            throw UsageError(.invalidValue, "--interval must be at least 1s", command: parsed.commandName)
        }
        self.format = format
        self.interval = interval
    }

    /// Prints lines until the process is stopped (or its output closed).
    func run(_ services: StatusCommand.Services, _ io: CommandIO, document: (SessionStatus?) -> JSONValue) async throws -> Never {
        let wake = try services.follow.make()
        var printed: StatusLine.State?
        var nextLine: Date?
        while true {
            let status: SessionStatus?
            do { status = try await services.status.execute() } catch {
                // A damaged file does not end the follower, as it does not
                // end the daemon: the bar says so, stderr says why (once),
                // and a repair (a change of the data) or the next interval
                // looks again.
                let report = ErrorReport(error)
                if printed != StatusLine.State(nil, failure: report.code) {
                    _ = report.print(json: false, console: io.console)
                    io.console.writeOut(StatusLine.render(failure: report, format: format) + "\n")
                    printed = StatusLine.State(nil, failure: report.code)
                }
                _ = await wake.wait(until: services.clock.now() + interval)
                continue
            }
            let now = services.clock.now()
            let state = StatusLine.State(status)
            let running = status.map { !$0.session.isPaused } ?? false
            if state != printed || nextLine.map({ now >= $0 }) == true {
                io.console.writeOut(StatusLine.render(status, format: format, document: document(status), seconds: interval < 60) + "\n")
                printed = state
                nextLine = running ? now + interval : nil
            } else if !running {
                nextLine = nil
            }
            _ = await wake.wait(until: deadline(status, nextLine: nextLine, now: now))
        }
    }

    /// The next instant to look again without a change of the data: the
    /// next line's, or the running session's end if sooner (its end is a
    /// change of state even when no process writes it).
    private func deadline(_ status: SessionStatus?, nextLine: Date?, now: Date) -> Date? {
        guard let status, !status.session.isPaused, let remaining = status.remaining else { return nextLine }
        // An end that has come but is not yet recorded (a strict session
        // the boot-time clock holds a moment longer): look again shortly,
        // not in a loop.
        let end = now + max(remaining, 0.05)
        return nextLine.map { min($0, end) } ?? end
    }
}
