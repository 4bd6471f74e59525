import Foundation
import Testing

/// The daemon at rest and following the configuration: no CPU while
/// nothing is due or while an interval is in progress, and a changed
/// setting taken up without a restart.
extension DaemonEndToEndTests {
    /// The local time `offset` seconds from now, as `--from`/`--to` take it:
    /// tests name times relative to when they run, never an hour of the day.
    func localTime(_ offset: TimeInterval) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: Date().addingTimeInterval(offset))
        return String(format: "%02d:%02d:%02d", parts.hour!, parts.minute!, parts.second!)
    }

    /// Nanoseconds the process has run on a CPU, all its threads together
    /// (`/proc/PID/task/*/schedstat`: finer than the 10 ms ticks of `stat`).
    func cpuNanoseconds(_ daemon: RetimeProcess.Running) throws -> Int {
        let tasks = "/proc/\(daemon.process.processIdentifier)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(0) { sum, task in
            let stat = try String(contentsOfFile: "\(tasks)/\(task)/schedstat", encoding: .utf8)
            return sum + (Int(stat.split(separator: " ").first ?? "") ?? 0)
        }
    }

    @Test("a daemon started before 'config set shield hosts' lowers a session's hosts block at its end")
    func followsShieldSetting() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "work", "--block", "example.com")
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        let hosts = retime.dataDirectory + "-hosts", original = "127.0.0.1 localhost\n"
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(original.utf8)))
        try retime.run("config", "set", "shield.hostsFile", hosts)
        try retime.run("config", "set", "shield", "hosts")
        try retime.run("start", "work", "--for", "2s")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8).contains("0.0.0.0 example.com"))
        #expect(eventually(within: 8) { !events(retime, named: "session-completed").isEmpty })
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original, "the daemon lifted the block through the hosts shield")
        let log = (try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("the configuration changed; services rebuilt"), "hooks and notifications follow the setting too")
    }

    @Test("an idle daemon sleeps: a command wakes it once, and then it uses no CPU")
    func idleAfterWake() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "g")
        try retime.run("schedule", "add", "far", "--group", "g", "--from", localTime(7_200), "--to", localTime(10_800))
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        try retime.run("group", "block", "g", "example.com")   // a write the daemon is woken by
        Thread.sleep(forTimeInterval: 0.3)
        let before = try cpuNanoseconds(daemon)
        Thread.sleep(forTimeInterval: 2)
        let spent = try cpuNanoseconds(daemon) - before
        #expect(spent < 10_000_000, "\(spent) ns of CPU in 2 s; a daemon that woke itself with its own writes burns a core")
    }

    @Test("with an interval in progress the daemon rests as when idle, during the session and after it is stopped")
    func restsDuringInterval() throws {
        let retime = RetimeProcess()
        try retime.run("group", "create", "g", "--block", "example.com")
        try retime.run("schedule", "add", "now", "--group", "g", "--from", localTime(-60), "--to", localTime(2_400))
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        #expect(eventually(within: 10) { (try? retime.run("status", "--json").json["active"] as? Bool) == true },
                "the daemon started the interval in progress")
        Thread.sleep(forTimeInterval: 0.3)
        var before = try cpuNanoseconds(daemon)
        Thread.sleep(forTimeInterval: 5)
        let during = try cpuNanoseconds(daemon) - before
        #expect(try retime.run("stop").status == 0)
        Thread.sleep(forTimeInterval: 0.3)
        before = try cpuNanoseconds(daemon)
        Thread.sleep(forTimeInterval: 5)
        let after = try cpuNanoseconds(daemon) - before
        #expect(during + after < 10_000_000, "\(during) ns in 5 s of the session, \(after) ns in 5 s after stop")
        #expect(daemon.process.isRunning)
    }
}
