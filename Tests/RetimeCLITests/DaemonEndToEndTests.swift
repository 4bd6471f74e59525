@testable import RetimeCLI
import Domain
import Foundation
import Testing

/// The daemon as a real process, with real signals, in temporary data dirs.
@Suite("retime daemon end to end", .serialized)
struct DaemonEndToEndTests {
    func startDaemon(_ retime: RetimeProcess) throws -> RetimeProcess.Running { try retime.startDaemon() }

    /// How late (ms) a handled event may be here. The daemon's precision is
    /// measured by bench/daemon.sh (docs/performance.md: a few ms); here a
    /// whole parallel suite shares two cores, and a wake can wait over a
    /// second for one. The bound catches a missed or mis-armed deadline,
    /// which is late by the next pass (a minute) or never handled.
    static let lateBound = 5_000

    func stop(_ daemon: RetimeProcess.Running) {
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    /// The daemon's own record of what it handled (events.jsonl).
    func events(_ retime: RetimeProcess, named name: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: retime.deviceFile("events.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["name"] as? String == name }
    }

    func lateness(_ event: [String: Any]) -> Int? {
        (event["properties"] as? [String: Any])?["lateMs"] as? Int
    }

    @Test("the daemon completes a session at its planned end, on time")
    func completesOnTime() throws {
        let retime = RetimeProcess()
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        try retime.run("start", "--for", "2s")
        #expect(eventually(within: 6) { !events(retime, named: "session-completed").isEmpty })
        let late = try #require(events(retime, named: "session-completed").first.flatMap(lateness))
        #expect(late >= 0 && late < Self.lateBound, "completed \(late) ms after the planned end")
        let ended = (try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first
        #expect(ended?["outcome"] as? String == "completed")
        // Its log names the instants as every other record does, in ISO 8601.
        let log = (try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? ""
        let completion = log.split(separator: "\n").first { $0.hasSuffix("session completed") }.map(String.init) ?? ""
        #expect(completion.contains(try Regex(#"plannedEnd=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z "#)), "\(completion)")
    }

    @Test("a schedule's interval starts and ends a session on its instants")
    func scheduledInterval() throws {
        var retime = RetimeProcess()
        retime.environment["TZ"] = "UTC"
        try retime.run("group", "create", "work")
        let now = Date()
        let from = now.addingTimeInterval(2).timeIntervalSince1970.rounded(.up)
        let to = from + 3
        guard Int(to) % 86_400 > Int(from) % 86_400 else { return } // not across midnight, for a simple test
        func clock(_ t: Double) -> String { String(Timestamp.format(Date(timeIntervalSince1970: t)).dropFirst(11).prefix(8)) }
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        #expect(try retime.run("schedule", "add", "soon", "--group", "work", "--from", clock(from), "--to", clock(to)).status == 0)
        #expect(try eventually(within: 10) {
            (try retime.run("log", "--json").json["sessions"] as? [Any])?.count == 1
        })
        let session = try #require((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first)
        #expect(session["origin"] as? String == "schedule:soon")
        #expect(try retime.run("log").out.contains("(schedule:soon)"), "log names where the session came from")
        let started = try #require((session["startedAt"] as? String).flatMap { Timestamp.parse($0) })
        #expect(started.timeIntervalSince1970 >= from && started.timeIntervalSince1970 - from < 1, "started on the interval's start")
        #expect(session["endedAt"] as? String == Timestamp.format(Date(timeIntervalSince1970: to), fractionDigits: 3))
        #expect(events(retime, named: "interval-started").compactMap(lateness).allSatisfy { $0 < Self.lateBound })
    }

    @Test("interval warnings and skips from the daemon reach the hooks, and warnings the desktop")
    func intervalHooks() throws {
        var retime = RetimeProcess()
        retime.environment["TZ"] = "UTC"
        for event in ["interval-warning", "interval-skipped"] {
            try HooksEndToEndTests.install(retime.file("hooks/" + event), HooksEndToEndTests.recorder)
        }
        let bin = retime.file("bin")
        try HooksEndToEndTests.install(bin + "/notify-send", #"printf '%s\n' "$@" > "$0.tmp" && mv "$0.tmp" "$0.args""#)
        retime.environment["PATH"] = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        retime.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + retime.file("bus")   // a desktop session
        try retime.run("config", "set", "notify", "on")
        try retime.run("group", "create", "work", "--block", "slack.com")
        try retime.run("start", "--for", "1h")   // so the interval is skipped
        let from = Date().addingTimeInterval(4).timeIntervalSince1970.rounded(.up)
        guard Int(from + 3) % 86_400 > Int(from) % 86_400 else { return } // not across midnight, for a simple test
        func clock(_ t: Double) -> String { String(Timestamp.format(Date(timeIntervalSince1970: t)).dropFirst(11).prefix(8)) }
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        #expect(try retime.run("schedule", "add", "soon", "--group", "work", "--from", clock(from), "--to", clock(from + 3),
                               "--warn", "2s").status == 0)
        let warning = try #require(HooksEndToEndTests.eventually(within: 10) {
            HooksEndToEndTests.environment(retime.file("hooks/interval-warning.env"))
        })
        #expect(warning["RETIME_ORIGIN"] == "schedule:soon" && warning["RETIME_GROUP"] == "work")
        #expect(warning["RETIME_TARGETS"] == "slack.com" && warning["RETIME_INTERVAL_EVENT"] == "intervalWillStartWarning")
        #expect(warning["RETIME_PLANNED_END"].flatMap(Timestamp.parse)?.timeIntervalSince1970 == from + 3)
        let skipped = try #require(HooksEndToEndTests.eventually(within: 10) {
            HooksEndToEndTests.environment(retime.file("hooks/interval-skipped.env"))
        })
        #expect(skipped["RETIME_ORIGIN"] == "schedule:soon" && skipped["RETIME_SESSION_ID"] == "")
        let notified = try #require(HooksEndToEndTests.eventually(within: 5) { try? String(contentsOfFile: bin + "/notify-send.args", encoding: .utf8) })
        #expect(notified.contains("Focus starts soon"))
    }

    @Test("a daemon killed mid-interval and restarted neither loses nor doubles the session")
    func killedAndRestarted() throws {
        var retime = RetimeProcess()
        retime.environment["TZ"] = "UTC"
        try retime.run("group", "create", "work")
        let from = Date().addingTimeInterval(1).timeIntervalSince1970.rounded(.up)
        let to = from + 4
        guard Int(to) % 86_400 > Int(from) % 86_400 else { return }
        func clock(_ t: Double) -> String { String(Timestamp.format(Date(timeIntervalSince1970: t)).dropFirst(11).prefix(8)) }
        try retime.run("schedule", "add", "soon", "--group", "work", "--from", clock(from), "--to", clock(to))
        let first = try startDaemon(retime)
        #expect(try eventually(within: 5) { try retime.run("status", "--json").json["active"] as? Bool == true })
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let second = try startDaemon(retime)
        defer { stop(second) }
        #expect(try eventually(within: 10) { (try retime.run("log", "--json").json["sessions"] as? [Any])?.count == 1 })
        #expect(events(retime, named: "interval-started").count == 1, "started once, across the restart")
        let session = (try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first
        #expect(session?["endedAt"] as? String == Timestamp.format(Date(timeIntervalSince1970: to), fractionDigits: 3))
    }

    @Test("a second daemon refuses to start, naming the first; SIGTERM ends the first promptly, exit 0")
    func singleInstanceAndShutdown() throws {
        let retime = RetimeProcess()
        let daemon = try startDaemon(retime)
        let second = try retime.run("daemon", "run")
        #expect(second.status == 1)
        #expect(second.err.contains("already runs") && second.err.contains("pid \(daemon.process.processIdentifier)"))
        let sent = Date()
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < promptly)
        #expect(daemon.process.terminationReason == .exit && daemon.process.terminationStatus == 0)
        try retime.run("start", "--for", "1h")
        let stopped = try retime.run("daemon", "status")
        #expect(stopped.status == 1 && stopped.err.hasPrefix("retime: error: the daemon is not running\n"))
        // Not running, it still says what it would have done next.
        #expect(stopped.out.hasPrefix("The daemon is not running; next: end the active session at "), "\(stopped.out)")
    }

    /// Sets the wall clock to what it reads: for the kernel a discontinuous
    /// change (it cancels `TFD_TIMER_CANCEL_ON_SET` timers) that moves the
    /// time by microseconds, so nothing else on the machine notices.
    func stepWallClock() -> Bool {
        var now = timespec()
        return clock_gettime(CLOCK_REALTIME, &now) == 0 && clock_settime(CLOCK_REALTIME, &now) == 0
    }

    @Test("a real change of the wall clock wakes the daemon at once; it looks again and still ends the session on time",
          .enabled(if: geteuid() == 0 && ProcessInfo.processInfo.environment["RETIME_TEST_SET_HOST_CLOCK"] == "1",
                   "sets the host's wall clock (no namespace moves CLOCK_REALTIME): opt in with RETIME_TEST_SET_HOST_CLOCK=1, never in CI"))
    func wallClockChange() throws {
        let retime = RetimeProcess()
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        try retime.run("start", "--for", "3s")
        func noticed() -> Bool {
            ((try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? "").contains("the wall clock changed")
        }
        // The daemon may still be busy with the start it was woken for, with
        // no timer armed to cancel: step again until it notices.
        var noticedChange = false
        for _ in 0..<10 where !noticedChange {
            #expect(stepWallClock())
            noticedChange = eventually(within: 0.3, noticed)
        }
        #expect(noticedChange, "the daemon woke for the clock change, without waiting for its deadline")
        #expect(eventually(within: 8) { !events(retime, named: "session-completed").isEmpty })
        let late = try #require(events(retime, named: "session-completed").first.flatMap(lateness))
        #expect(late >= 0 && late < Self.lateBound, "completed \(late) ms after the planned end")
    }

    /// Whether this process may give a child an `/etc` of its own (a private
    /// mount namespace; root with CAP_SYS_ADMIN), so a test can change the
    /// system's time zone for the daemon alone.
    static let canFakeEtc: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-c", "mount --bind /tmp /mnt"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test("a change of the system's time zone wakes the daemon, and schedules follow the new zone's clock",
          .enabled(if: canFakeEtc, "needs a private mount namespace for a fake /etc"))
    func timeZoneChange() throws {
        let etc = FileManager.default.temporaryDirectory.appendingPathComponent("retime-etc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: etc) }
        func setZone(_ zone: String) throws {
            try FileManager.default.createSymbolicLink(atPath: etc + "/.localtime.new", withDestinationPath: "/usr/share/zoneinfo/" + zone)
            #expect(rename(etc + "/.localtime.new", etc + "/localtime") == 0)
        }
        try setZone("Etc/UTC")
        var retime = RetimeProcess()
        // The daemon alone sees `etc` as /etc, and no TZ that would override it.
        retime.launcher = ["/usr/bin/env", "-u", "TZ", "/usr/bin/unshare", "--mount", "--propagation", "private",
                           "/bin/sh", "-c", "mount --bind '\(etc)' /etc && exec \"$0\" \"$@\""]
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        // An interval starting 4 s from now on Tokyo's clock: hours away on UTC's.
        var tokyo = Calendar(identifier: .gregorian)
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let from = Date().addingTimeInterval(4).timeIntervalSince1970.rounded(.up)
        func clock(_ t: Double) -> String {
            let parts = tokyo.dateComponents([.hour, .minute, .second], from: Date(timeIntervalSince1970: t))
            return String(format: "%02d:%02d:%02d", parts.hour!, parts.minute!, parts.second!)
        }
        var cli = retime
        cli.launcher = []
        try cli.run("group", "create", "work")
        #expect(try cli.run("schedule", "add", "soon", "--group", "work", "--from", clock(from), "--to", clock(from + 60)).status == 0)
        try setZone("Asia/Tokyo")
        #expect(eventually(within: 5) {
            ((try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? "").contains("the time zone changed")
        }, "the daemon noticed the new zone")
        #expect(eventually(within: 10) { !events(retime, named: "interval-started").isEmpty }, "the interval started on Tokyo's clock")
        let late = try #require(events(retime, named: "interval-started").first.flatMap(lateness))
        #expect(late >= 0 && late < Self.lateBound, "started \(late) ms after the interval's start")
    }

    @Test("daemon status tells the pid, the uptime and what is next; SIGHUP reloads and it keeps running")
    func statusAndReload() throws {
        let retime = RetimeProcess()
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        try retime.run("start", "--for", "1h")
        let status = try retime.run("daemon", "status", "--json")
        #expect(status.status == 0)
        #expect(status.json["pid"] as? Int == Int(daemon.process.processIdentifier))
        #expect((status.json["uptimeSeconds"] as? Double).map { $0 >= 0 && $0 < 60 } == true)
        #expect((status.json["next"] as? [String: Any])?["what"] as? String == "end the active session")
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(eventually(within: 5) {
            ((try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? "").contains("reloading the configuration")
        })
        #expect(try retime.run("daemon", "status").status == 0, "still running after SIGHUP")
    }

    @Test("a damaged data file does not kill the daemon: it says so and carries on once repaired")
    func survivesDamage() throws {
        let retime = RetimeProcess()
        try retime.run("start", "--for", "1h")
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        try Data("{\"format\":\"retime.su".utf8).write(to: URL(fileURLWithPath: try retime.changeLog("session")))
        #expect(eventually(within: 5) {
            ((try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? "").contains("a pass failed")
        })
        #expect(try retime.run("daemon", "status").status == 0, "still running")
        #expect(try retime.run("doctor", "--repair").status == 0)
        // The running session the damaged log held is back, from this
        // device's last good copy; stopped, the next one runs to its end.
        #expect(try retime.run("stop").status == 0)
        #expect(try retime.run("start", "--for", "1s").status == 0)
        #expect(eventually(within: 5) { !events(retime, named: "session-completed").isEmpty })
    }
}
