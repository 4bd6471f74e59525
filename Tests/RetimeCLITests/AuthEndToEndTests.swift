import Foundation
import Testing

/// The passcode, its lockout and the shield's authorization, through the
/// built binary in temporary data directories.
@Suite("auth end to end")
struct AuthEndToEndTests {
    let retime = RetimeProcess()
    /// faketime works by preloading a library, which a statically linked
    /// binary (the release build) never loads.
    static let hasFaketime = FileManager.default.fileExists(atPath: "/usr/bin/faketime")
        && RetimeProcess.isDynamicallyLinked

    /// Sets passcode `1234` and starts an hour-long strict session on `work`.
    func strictSessionWithPasscode() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "1234\n").status == 0)
        try retime.run("group", "create", "work", "--block", "a.com", "--block", "b.com")
        #expect(try retime.run("start", "work", "--for", "1h", "--strict").status == 0)
    }

    @Test("auth status reports the spec's shape")
    func status() throws {
        let fresh = try retime.run("auth", "status", "--json")
        #expect(fresh.status == 0)
        #expect(Set(fresh.json.keys) == ["schema", "passcodeSet", "lockedUntil", "failedAttempts", "shieldAuthorization"])
        #expect(fresh.json["passcodeSet"] as? Bool == false && fresh.json["lockedUntil"] is NSNull)
        #expect(fresh.json["failedAttempts"] as? Int == 0 && fresh.json["shieldAuthorization"] as? String == "notDetermined")
        let words = try retime.run("auth", "status").out
        #expect(words.contains("shield authorization: not asked yet") && !words.contains("notDetermined"), "words, not internal names: \(words)")
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "1234\n").status == 0)
        #expect(try retime.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)
    }

    @Test("a strict session stops early only with the right passcode on stdin")
    func strictStopWithPasscode() throws {
        // Words no id, time or key in the audit trail can hold by chance
        // (digits can: a nanosecond field once held "4321").
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
        try retime.run("group", "create", "work", "--block", "a.com")
        let start = try retime.run("start", "work", "--for", "1h", "--strict")
        #expect(start.status == 0 && start.prose.contains("It is strict: only your passcode ends it early."),
                "with a passcode set, start does not say it cannot be stopped (issue 29): \(start.out)")
        let bare = try retime.run("stop", "--json")
        #expect(bare.status == 3 && bare.errorCode == "auth.passcodeRequired")
        let wrong = try retime.run(["stop", "--passcode-stdin", "--json"], input: "wombat\n")
        #expect(wrong.status == 3 && wrong.errorCode == "auth.wrongPasscode")
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        let right = try retime.run(["stop", "--passcode-stdin", "--json"], input: "quokka\n")
        #expect(right.status == 0)
        #expect((right.json["session"] as? [String: Any])?["outcome"] as? String == "stopped")
        let audit = try String(contentsOfFile: retime.deviceFile("audit.jsonl"), encoding: .utf8)
        #expect(audit.split(separator: "\n").count == 4, "set, required, wrong, right")
        #expect(!audit.contains("quokka") && !audit.contains("wombat"), "never the passcode")
        let check = (try retime.run("doctor", "--json").json["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "audit trail" }
        #expect(check?["detail"] as? String == "4 entries")
    }

    @Test("with no passcode set a strict session has no way out")
    func noPasscodeNoWayOut() throws {
        try retime.run("start", "--for", "1h", "--strict")
        let stop = try retime.run(["stop", "--passcode-stdin", "--json"], input: "1234\n")
        #expect(stop.status == 3 && stop.errorCode == "session.strict")
        let set = try retime.run(["auth", "set-passcode", "--stdin", "--json"], input: "1234\n")
        #expect(set.status == 3 && set.errorCode == "auth.strictSession", "setting one now would open a way out")
    }

    @Test("a refusal names the strict session's end on the user's clock, as its start did")
    func refusalInLocalTime() throws {
        var berlin = retime
        berlin.environment["TZ"] = "Europe/Berlin"
        let started = try berlin.run("start", "--for", "1h", "--strict")
        // The date comes first when the end falls on another day.
        let clock = try #require(started.out.firstMatch(of: /until (?:\d{4}-\d\d-\d\d )?(\d\d:\d\d:\d\d)/)).1
        let stop = try berlin.run("stop", "--json")
        #expect(stop.status == 3)
        // (With the date before it when the end falls on another day.)
        #expect(stop.err.contains("retime: error: the session is strict until ") && stop.err.contains("\(clock)\n"), "\(stop.err)")
        #expect(!stop.err.contains("Z\n"), "not UTC")
    }

    @Test("5 wrong passcodes lock out; a 6th, right one is refused until the lockout ends")
    func lockout() throws {
        try strictSessionWithPasscode()
        for attempt in 1...5 {
            let wrong = try retime.run(["stop", "--passcode-stdin", "--json"], input: "000\(attempt)\n")
            #expect(wrong.status == 3 && wrong.errorCode == "auth.wrongPasscode", "attempt \(attempt)")
        }
        let right = try retime.run(["stop", "--passcode-stdin", "--json"], input: "1234\n")
        #expect(right.status == 3 && right.errorCode == "auth.lockedOut")
        let status = try retime.run("auth", "status", "--json").json
        #expect(status["failedAttempts"] as? Int == 5 && status["lockedUntil"] is String)
        guard Self.hasFaketime else { return }
        // 61 s later (the wall clock alone decides the lockout) the right passcode works.
        var later = retime
        later.launcher = ["/usr/bin/faketime", "-f", "+61s"]
        #expect(try later.run(["stop", "--passcode-stdin"], input: "1234\n").status == 0)
    }

    @Test("parallel processes guessing cannot get past the lockout: exactly 5 guesses are heard")
    func lockoutAcrossProcesses() throws {
        try strictSessionWithPasscode()
        let running = try (0..<10).map { index in try retime.start(["stop", "--passcode-stdin", "--json"], input: "99\(index)9\n") }
        let outcomes = try running.map { try retime.finish($0) }
        #expect(outcomes.allSatisfy { $0.status == 3 })
        let codes = outcomes.compactMap(\.errorCode)
        #expect(codes.filter { $0 == "auth.wrongPasscode" }.count == 5, "\(codes)")
        #expect(codes.filter { $0 == "auth.lockedOut" }.count == 5, "\(codes)")
        let audit = try String(contentsOfFile: retime.deviceFile("audit.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(audit.count == 11, "set-passcode and the ten attempts")
        #expect(try retime.run("auth", "status", "--json").json["failedAttempts"] as? Int == 5)
    }

    @Test("the passcode lets a strict session's group be weakened and the shield changed")
    func weakenWithPasscode() throws {
        try strictSessionWithPasscode()
        #expect(try retime.run("group", "unblock", "work", "a.com", "--json").errorCode == "auth.passcodeRequired")
        #expect(try retime.run(["group", "unblock", "work", "a.com", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try retime.run("config", "set", "shield", "none", "--json").errorCode == "auth.passcodeRequired")
        #expect(try retime.run(["config", "set", "shield", "none", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try retime.run(["group", "rename", "work", "play", "--passcode-stdin"], input: "1234\n").status == 0)
        let group = try retime.run("group", "show", "play", "--json").json["group"] as? [String: Any]
        #expect(group?["targets"] as? [String] == ["b.com"])
    }

    @Test("change and remove need the current passcode; bad new ones are refused with exit 2")
    func changeAndRemove() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "1234\n").status == 0)
        #expect(try retime.run(["auth", "set-passcode", "--stdin", "--json"], input: "5678\n").errorCode == "auth.passcodeAlreadySet")
        #expect(try retime.run(["auth", "change-passcode", "--stdin", "--json"], input: "0000\n5678\n").status == 3)
        let short = try retime.run(["auth", "change-passcode", "--stdin", "--json"], input: "1234\n12\n")
        #expect(short.status == 2 && short.errorCode == "auth.invalidPasscode")
        #expect(try retime.run(["auth", "change-passcode", "--stdin"], input: "1234\r\n5678\r\n").status == 0, "CRLF lines")
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: "1234\n").status == 3)
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: "5678\n").status == 0)
        #expect(try retime.run("auth", "status", "--json").json["passcodeSet"] as? Bool == false)
        let missing = try retime.run(["auth", "set-passcode", "--stdin", "--json"], input: "")
        #expect(missing.status == 2 && missing.errorCode == "usage.missingValue")
    }

    @Test("auth request: approved for a writable hosts file, denied when it cannot be written, and kept")
    func request() throws {
        #expect(try retime.run("auth", "request", "--json").json["shieldAuthorization"] as? String == "approved", "the none shield")
        try retime.run("config", "set", "shield", "hosts")
        try retime.run("config", "set", "shield.hostsFile", retime.file("no-such-dir/hosts"))
        let denied = try retime.run("auth", "request", "--json")
        #expect(denied.status == 0 && denied.json["shieldAuthorization"] as? String == "denied")
        #expect(try retime.run("auth", "status", "--json").json["shieldAuthorization"] as? String == "denied")
        #expect(!FileManager.default.fileExists(atPath: retime.file("no-such-dir")), "asking changes nothing")
        try retime.run("config", "set", "shield.hostsFile", retime.file("hosts"))
        #expect(try retime.run("auth", "request", "--json").json["shieldAuthorization"] as? String == "approved")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: retime.dataDirectory).filter { $0.contains("probe") }
        #expect(leftovers.isEmpty)
    }
}

/// The no-echo prompt, on a real pseudo-terminal driven by
/// `Helpers/pty_driver.py` (which waits for each prompt before typing).
@Suite("passcode prompt on a terminal", .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
struct PasscodePromptTests {
    let retime = RetimeProcess()
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers/pty_driver.py").path

    /// Runs retime on a terminal, answering `steps` (prompt, typed text) in order.
    func onTerminal(_ steps: [(String, String)], _ arguments: String...) throws -> RetimeProcess.Outcome {
        var driver = retime
        driver.launcher = ["/usr/bin/python3", Self.driver] + steps.map { "\($0)=\($1)" } + ["--"]
        return try driver.run(arguments)
    }

    @Test("set-passcode asks twice without echoing; change asks for the old one first")
    func promptsWithoutEcho() throws {
        let set = try onTerminal([("New passcode: ", "s3cret!\\r"), ("Repeat it: ", "s3cret!\\r")], "auth", "set-passcode")
        #expect(set.status == 0, "\(set.out) \(set.err)")
        #expect(set.out.contains("New passcode: ") && set.out.contains("Passcode set."))
        #expect(!set.out.contains("s3cret"), "the passcode was echoed: \(set.out)")
        let change = try onTerminal([("Current passcode: ", "s3cret!\\r"), ("New passcode: ", "n3w-one\\r"), ("Repeat it: ", "n3w-one\\r")],
                                    "auth", "change-passcode")
        #expect(change.status == 0 && !change.out.contains("n3w-one"))
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: "n3w-one\n").status == 0)
    }

    @Test("a strict session's stop and pause prompt for the passcode on a terminal; --passcode-stdin there does not echo it")
    func strictPrompts() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "q-9137\n").status == 0)
        try retime.run("start", "--for", "10m", "--strict")
        let pause = try onTerminal([("Passcode: ", "q-9137\r")], "pause")
        #expect(pause.status == 0 && pause.out.contains("Paused"), "\(pause.out) \(pause.err)")
        #expect(!pause.out.contains("q-9137"), "the passcode was echoed: \(pause.out)")
        try retime.run("resume")
        let stop = try onTerminal([("Passcode: ", "q-9137\r")], "stop", "--passcode-stdin")
        #expect(stop.status == 0 && stop.out.contains("Stopped"), "\(stop.out) \(stop.err)")
        #expect(!stop.out.contains("q-9137"), "the passcode was echoed: \(stop.out)")
    }

    @Test("backspace edits the typed passcode; entries that differ are refused; Ctrl-C cancels (exit 2)")
    func editingAndCancel() throws {
        let typo = try onTerminal([("New passcode: ", "1234\\r"), ("Repeat it: ", "12345\\r")], "auth", "set-passcode")
        #expect(typo.status == 2 && typo.out.contains("the two entries differ"))
        let edited = try onTerminal([("New passcode: ", "1235\\x7f4\\r"), ("Repeat it: ", "1234\\r")], "auth", "set-passcode")
        #expect(edited.status == 0)
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: "1234\n").status == 0, "the edited passcode is 1234")
        let cancelled = try onTerminal([("New passcode: ", "12\\x03")], "auth", "set-passcode")
        #expect(cancelled.status == 2 && cancelled.out.contains("cancelled"))
        #expect(try retime.run("auth", "status", "--json").json["passcodeSet"] as? Bool == false)
    }
}
