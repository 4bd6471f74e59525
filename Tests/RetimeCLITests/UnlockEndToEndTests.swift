import Domain
import Foundation
import Testing

/// Ending a strict session early by config `unlock` (cli.md, "Ending a
/// strict session early"), through the built binary: a real countdown with
/// the daemon and a hosts file of the test's own, text typed back on a
/// pseudo-terminal, `never`, and the rule locked during a strict session.
@Suite("unlock end to end", .serialized)
struct UnlockEndToEndTests {
    let retime = RetimeProcess()
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers/pty_driver.py").path

    /// The hosts shield on a hosts file of the test's own, and a group `work` that blocks example.com.
    func useHostsShield() throws -> String {
        let hosts = retime.dataDirectory + "-hosts"
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data("127.0.0.1 localhost\n".utf8)))
        try retime.run("config", "set", "shield.hostsFile", hosts)
        #expect(try retime.run("config", "set", "shield", "hosts").status == 0)
        #expect(try retime.run("group", "create", "work", "--block", "example.com").status == 0)
        return hosts
    }

    func blocked(_ hosts: String) -> Bool {
        ((try? String(contentsOfFile: hosts, encoding: .utf8)) ?? "").contains("example.com")
    }

    /// Runs retime on a terminal, answering `steps` (prompt, typed text) in order.
    func onTerminal(_ steps: [(String, String)], _ arguments: String...) throws -> RetimeProcess.Outcome {
        var driver = retime
        driver.launcher = ["/usr/bin/python3", Self.driver] + steps.map { "\($0)=\($1)" } + ["--"]
        return try driver.run(arguments)
    }

    /// An instant of a JSON document.
    static func instant(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        return Timestamp.parse(text)
    }

    func events(named name: String) -> [[String: Any]] {
        let text = (try? retime.deviceFile("events.jsonl")).flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["name"] as? String == name }
    }

    @Test("delay: stop starts a countdown that status shows; asking again does not restart it; the daemon lowers the block at its end, within 50 ms")
    func delayWithDaemon() throws {
        let hosts = try useHostsShield()
        try HooksEndToEndTests.install(retime.file("hooks/unlock-requested"), HooksEndToEndTests.recorder)
        #expect(try retime.run("config", "set", "unlock", "delay:3s").status == 0)
        let daemon = try retime.start(["daemon", "run"])
        defer {
            kill(daemon.process.processIdentifier, SIGTERM)
            daemon.process.waitUntilExit()
        }
        #expect(try eventually(within: 15) { try retime.run("daemon", "status").status == 0 })
        #expect(try retime.run("start", "work", "--for", "10m", "--strict").status == 0)
        #expect(blocked(hosts))

        let stop = try retime.run("--json", "stop")
        #expect(stop.status == 0, "\(stop.err)")
        let unlock = try #require(stop.json["unlock"] as? [String: Any])
        #expect(unlock["action"] as? String == "stop" && unlock["started"] as? Bool == true)
        let endsAt = try #require(Self.instant(unlock["endsAt"]))
        #expect(blocked(hosts), "the block stays up while the countdown runs")

        let again = try retime.run("--json", "stop")
        #expect(again.status == 0 && (again.json["unlock"] as? [String: Any])?["started"] as? Bool == false)
        let againEnd = try #require(Self.instant((again.json["unlock"] as? [String: Any])?["endsAt"]))
        #expect(abs(againEnd.timeIntervalSince(endsAt)) < 0.002, "not restarted")
        let status = try retime.run("--json", "status")
        let shown = (status.json["session"] as? [String: Any])?["unlock"] as? [String: Any]
        let shownEnd = try #require(Self.instant(shown?["endsAt"]))
        #expect(abs(shownEnd.timeIntervalSince(endsAt)) < 0.002 && shown?["action"] as? String == "stop")
        #expect(try retime.run("status").out.contains("countdown: the session stops in"))

        // Watch the hosts file closely: when did the block go?
        var lowered: Date?
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !blocked(hosts) { lowered = Date(); break }
            usleep(1_000)
        }
        let at = try #require(lowered, "the block was lowered")
        let late = at.timeIntervalSince(endsAt)
        #expect(late >= -0.001 && late < 0.05, "lowered \(Int(late * 1_000)) ms after the countdown's end")
        #expect(try eventually(within: 5) { (try retime.loggedSessions().first?["outcome"] as? String) == "stopped" })
        #expect(!events(named: "unlock-requested").isEmpty && !events(named: "unlock-elapsed").isEmpty)
        #expect(try eventually(within: 5) { FileManager.default.fileExists(atPath: retime.file("hooks/unlock-requested.env")) },
                "the unlock-requested hook ran")
    }

    @Test("delay: on a terminal, stop starts the countdown without a prompt; stop --withdraw cancels it (exit 0); with none running it says so (exit 1)",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func withdraw() throws {
        #expect(try retime.run("config", "set", "unlock", "delay:1h").status == 0)
        let start = try retime.run("start", "--for", "10m", "--strict", "--create")
        #expect(start.status == 0 && start.out.contains("ending it early takes a 1h countdown"), "\(start.out)")
        // A person at a terminal is told of the countdown, never asked for a passcode.
        let stop = try onTerminal([], "stop")
        #expect(stop.status == 0 && stop.out.contains("Countdown started") && !stop.out.contains("asscode"), "\(stop.out)")
        let withdrawn = try retime.run("stop", "--withdraw")
        #expect(withdrawn.status == 0 && withdrawn.out.contains("Withdrawn"), "\(withdrawn.err)")
        #expect(!events(named: "unlock-withdrawn").isEmpty)
        let status = try retime.run("--json", "status")
        #expect((status.json["session"] as? [String: Any])?["unlock"] == nil && status.json["active"] as? Bool == true)
        let none = try retime.run("stop", "--withdraw")
        #expect(none.status == 1 && none.err.contains("no countdown"))
        #expect(try retime.run("stop", "--withdraw", "--at", "1m ago").status == 2)
    }

    @Test("typing: the text shown on the terminal, typed back, stops the session; mistyped it does not (exit 3); from a pipe it is refused (exit 3)",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func typing() throws {
        #expect(try retime.run("config", "set", "unlock", "typing:24").status == 0)
        #expect(try retime.run("start", "--for", "10m", "--strict", "--create").status == 0)

        let piped = try retime.run(["stop"], input: "anything\n")
        #expect(piped.status == 3 && piped.err.contains("terminal"), "\(piped.err)")
        let wrong = try onTerminal([("Type it: ", "not-the-text\\r")], "stop")
        #expect(wrong.status == 3 && wrong.out.contains("does not match"), "\(wrong.out)")
        #expect(try retime.run("--json", "status").json["active"] as? Bool == true)

        let typed = try onTerminal([("Type it: ", "{shown:Text: }\\r")], "stop")
        #expect(typed.status == 0 && typed.out.contains("Stopped"), "\(typed.out)")
        let text = try #require(try Regex(#"Text: ([A-Za-z0-9]+)"#).firstMatch(in: typed.out)?.output[1].substring)
        #expect(text.count == 24)
        #expect(try retime.loggedSessions().first?["outcome"] as? String == "stopped")
    }

    @Test("never: neither stop, pause nor cancel ends a strict session early, not even with the passcode (exit 3)")
    func never() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "q-9137\n").status == 0)
        #expect(try retime.run("config", "set", "unlock", "never").status == 0)
        #expect(try retime.run("start", "--for", "10m", "--strict", "--create").status == 0)
        let stop = try retime.run(["stop", "--passcode-stdin"], input: "q-9137\n")
        #expect(stop.status == 3 && stop.err.contains("never"), "\(stop.err)")
        #expect(try retime.run(["pause", "--passcode-stdin"], input: "q-9137\n").status == 3)
        #expect(try retime.run(["cancel", "--passcode-stdin"], input: "q-9137\n").status == 3, "cancel is no way around it")
        #expect(try retime.run("--json", "status").json["active"] as? Bool == true)
    }

    @Test("unlock cannot be changed or unset during a strict session (exit 3); bad values are refused (exit 2)")
    func lockedDuringStrict() throws {
        for bad in ["delay:soon", "typing:8", "typing:600", "later"] {
            let refused = try retime.run("config", "set", "unlock", bad)
            #expect(refused.status == 2 && refused.err.contains("unlock"), "\(bad): \(refused.err)")
        }
        #expect(try retime.run("config", "set", "unlock", "delay:10m").status == 0)
        #expect(try retime.run("start", "--for", "10m", "--strict", "--create").status == 0)
        let weaken = try retime.run("config", "set", "unlock", "passcode")
        #expect(weaken.status == 3 && weaken.err.contains("strict"), "\(weaken.err)")
        #expect(try retime.run("config", "unset", "unlock").status == 3)
        #expect(try retime.run("config", "get", "unlock").out.contains("delay:10m"))
    }
}
