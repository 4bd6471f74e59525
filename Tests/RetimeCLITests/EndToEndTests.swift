import Domain
import Foundation
import Testing

/// The built `retime` binary as a user runs it, in temporary data directories.
@Suite("retime end to end")
struct EndToEndTests {
    let retime = RetimeProcess()

    @Test("a fresh install starts a session on the default group")
    func defaultGroup() throws {
        let started = try retime.run("start", "--for", "25m", "--json")
        #expect(started.status == 0)
        let session = try #require(started.json["session"] as? [String: Any])
        #expect(session["group"] as? String == "focus")
        #expect(session["outcome"] as? String == "active")
        #expect(session["origin"] as? String == "manual")
        #expect(session["plannedEnd"] is String && session["endedAt"] is NSNull)
        #expect(started.json["schema"] as? String == "retime/1")
        let groups = try retime.run("group", "list", "--json").json["groups"] as? [[String: Any]]
        #expect(groups?.map { $0["name"] as? String } == ["focus"])
    }

    @Test("starting on an empty group says nothing is blocked and how to fill it; an end on another day shows its date")
    func emptyGroupAndLocalDateTime() throws {
        var retime = retime
        retime.environment["TZ"] = "Europe/Berlin"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // 23 hours ahead, to the minute: another day unless it is just after midnight.
        let end = calendar.dateInterval(of: .minute, for: Date().addingTimeInterval(23 * 3_600))!.start
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: end)
        let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let clock = String(format: "%02d:%02d:00", parts.hour!, parts.minute!)
        let shown = calendar.isDate(end, inSameDayAs: Date()) ? clock : "\(day) \(clock)"
        let started = try retime.run("start", "--until", "\(day) \(clock.prefix(5))")
        #expect(started.status == 0, "\(started.err)")
        #expect(started.out.contains("until \(shown)."), "\(started.out)")
        #expect(started.prose.contains("Nothing is blocked: focus has no targets yet") && started.prose.contains("'retime group block focus SITE'"))
        let session = try #require(try retime.run("status", "--json").json["session"] as? [String: Any])
        #expect((session["plannedEnd"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } == end)
        #expect(try retime.run("status").out.contains("ends \(shown)"))
        try retime.run("stop")
        try retime.run("group", "create", "Deep Work")
        #expect(try retime.run("start", "deep work").out.contains("'retime group block \"Deep Work\" SITE'"))
    }

    @Test("groups: create, show, block, unblock, rename, list, delete")
    func groups() throws {
        let created = try retime.run("group", "create", "Work", "--block", "Slack.com", "--block", "app:mail", "--json")
        #expect(created.status == 0)
        let group = try #require(created.json["group"] as? [String: Any])
        #expect(Set(group.keys) == ["id", "name", "targets", "allowanceSeconds", "createdAt", "updatedAt"])
        #expect(group["targets"] as? [String] == ["slack.com", "app:mail"])
        #expect(try retime.run("group", "block", "work", "news.example.org", "bücher.de", "--json").json["group"]
            .flatMap { ($0 as? [String: Any])?["targets"] as? [String] } == ["slack.com", "app:mail", "news.example.org", "xn--bcher-kva.de"])
        // People read Unicode; the ASCII form the hosts file holds is shown beside it.
        let listed = try retime.run("group", "list")
        #expect(listed.out.contains("bücher.de") && !listed.out.contains("xn--"), "\(listed.out)")
        #expect(try retime.run("group", "show", "work").out.contains("bücher.de  (xn--bcher-kva.de)"))
        #expect(try retime.run("group", "unblock", "work", "app:mail").status == 0)
        #expect(try retime.run("group", "rename", "work", "Deep Work").out == "Renamed work to Deep Work; its sessions and schedules follow it.\n")
        let shown = try retime.run("group", "show", "deep work")
        #expect(shown.status == 0 && shown.out.contains("Deep Work") && shown.out.contains("slack.com"))
        #expect(try retime.run("group", "delete", "DEEP WORK", "--json").json["ok"] as? Bool == true)
        #expect(try retime.run("group", "list", "--json").json["groups"] as? [Any] != nil)
        #expect((try retime.run("group", "list", "--json").json["groups"] as? [Any])?.isEmpty == true)
    }

    @Test("a session: start, status, pause, resume, stop, then the log")
    func sessionLifecycle() throws {
        try retime.run("group", "create", "work", "--block", "example.com")
        let started = try retime.run("start", "work", "--for", "1h", "--tag", "writing", "--note", "chapter 3", "--json")
        #expect(started.status == 0)
        let status = try retime.run("status", "--json")
        #expect(status.json["active"] as? Bool == true)
        #expect((status.json["daemon"] as? [String: Any])?["running"] as? Bool == false)
        let session = try #require(status.json["session"] as? [String: Any])
        #expect(session["remainingSeconds"] is NSNumber && session["elapsedSeconds"] is NSNumber)
        #expect(try retime.run("pause", "--json").json["session"].flatMap { ($0 as? [String: Any])?["paused"] as? Bool } == true)
        #expect(try retime.run("resume").status == 0)
        let stopped = try retime.run("stop", "--json")
        let ended = try #require(stopped.json["session"] as? [String: Any])
        #expect(ended["outcome"] as? String == "stopped")
        #expect((ended["breaks"] as? [Any])?.count == 1)
        let log = try retime.run("log", "--json").json["sessions"] as? [[String: Any]]
        #expect(log?.count == 1)
        #expect(log?.first?["tags"] as? [String] == ["writing"] && log?.first?["note"] as? String == "chapter 3")
        let csv = try retime.run("log", "--csv")
        #expect(csv.out.hasPrefix("id,group,groupId,startedAt,plannedEnd,endedAt,outcome,strict,focusedSeconds,breaks,tags,note,origin\n"))
        #expect(csv.out.contains(",work,") && csv.out.contains(",stopped,"))
    }

    @Test("log filters by group, range and limit")
    func logFilters() throws {
        try retime.run("group", "create", "a")
        try retime.run("group", "create", "b")
        for group in ["a", "b", "a"] {
            try retime.run("start", group)
            try retime.run("stop")
        }
        #expect((try retime.run("log", "--group", "A", "--json").json["sessions"] as? [Any])?.count == 2)
        #expect((try retime.run("log", "--limit", "1", "--json").json["sessions"] as? [[String: Any]])?.first?["group"] as? String == "a")
        #expect((try retime.run("log", "--since", "today", "--json").json["sessions"] as? [Any])?.count == 3)
        #expect((try retime.run("log", "--until", "-3d", "--json").json["sessions"] as? [Any])?.count == 0)
        #expect(try retime.run("log", "--group", "nope").status == 1)
    }

    @Test("start --at and stop --at take a time in the past ('30m ago', HH:MM, a date-time), as Watson's and Timewarrior's do (issue 29)")
    func startAndStopAt() throws {
        try retime.run("group", "create", "work")
        let before = Date()
        let start = try retime.run("start", "work", "--at", "30 minutes ago", "--for", "50m", "--json")
        #expect(start.status == 0, "\(start.err)")
        let session = start.json["session"] as? [String: Any]
        let began = (session?["startedAt"] as? String).flatMap(Timestamp.parse)
        #expect(began.map { abs($0.timeIntervalSince(before.addingTimeInterval(-1_800))) < 5 } == true, "\(String(describing: session))")
        let planned = (session?["plannedEnd"] as? String).flatMap(Timestamp.parse)
        #expect(zip2(planned, began).map { $0.timeIntervalSince($1) } == 3_000, "50m from when it began")
        let early = try retime.run("stop", "--at", "40m ago", "--json")
        #expect(early.status == 2 && early.errorCode == "session.invalidTimes", "before its start: \(early.err)")
        let stop = try retime.run("stop", "--at", "10m ago", "--json")
        #expect(stop.status == 0, "\(stop.err)")
        let focused = (stop.json["session"] as? [String: Any])?["focusedSeconds"] as? Double ?? 0
        #expect(abs(focused - 1_200) < 5, "20 minutes focused: \(focused)")
        #expect(try retime.run("start", "work", "--at", "25h ago").status == 2, "at most 24 hours ago")
    }

    private func zip2(_ a: Date?, _ b: Date?) -> (Date, Date)? { a.flatMap { a in b.map { (a, $0) } } }

    @Test("a session running while its group is renamed is recorded under the new name (issue 29)")
    func renamedWhileRunning() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work").status == 0)
        #expect(try retime.run("group", "rename", "work", "deepwork").status == 0)
        #expect(try retime.run("stop").status == 0)
        let sessions = try retime.run("log", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.first?["group"] as? String == "deepwork")
        let log = try retime.run("log").out
        #expect(log.contains(" deepwork ") && !log.contains("was work"), "\(log)")
    }

    @Test("an open-ended session ended by stop is completed in log, JSON and report alike; one stopped before its end is stopped (issue 29)")
    func stoppedOrCompleted() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work").status == 0)
        #expect(try retime.run("stop").status == 0)
        #expect(try retime.run("start", "work", "--for", "10m").status == 0)
        #expect(try retime.run("stop").status == 0)
        let sessions = try retime.run("log", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.compactMap { $0["outcome"] as? String } == ["stopped", "completed"])
        let lines = try retime.run("log").out.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 2 && lines[0].contains(" stopped") && lines[1].contains(" completed"), "\(lines)")
        let report = try retime.run("report", "--json").json
        #expect(report["totalSessions"] as? Int == 2 && report["completionRate"] as? Double == 0.5, "\(report)")
    }

    @Test("log's table lines up its columns whatever the groups' names, and a tag with a space reads as one")
    func logTable() throws {
        try retime.run("group", "create", "Deep Work")
        try retime.run("start", "--tag", "two words", "--tag", "solo", "--note", "chapter 3\nand more")
        try retime.run("stop")
        try retime.run("start", "deep work")
        try retime.run("stop")
        let lines = try retime.run("log").out.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 2)
        #expect(Set(lines.map { $0.firstRange(of: "completed")?.lowerBound.utf16Offset(in: $0) }).count == 1, "\(lines)")
        #expect(lines.last?.hasSuffix("completed  #\"two words\" #solo  — chapter 3") == true, "\(lines)")
    }

    @Test("config: list, get, set, unset, with the values in force")
    func config() throws {
        #expect(try retime.run("config", "get", "defaultGroup").out == "focus\n")
        #expect(try retime.run("config", "set", "defaultGroup", "Deep").status == 0)
        #expect(try retime.run("config", "list", "--json").json["config"].flatMap { ($0 as? [String: String])?["defaultGroup"] } == "Deep")
        #expect(try retime.run("start", "--json").json["session"].flatMap { ($0 as? [String: Any])?["group"] as? String } == "Deep")
        #expect(try retime.run("config", "unset", "defaultGroup").status == 0)
        #expect(try retime.run("config", "get", "defaultGroup").out == "focus\n")
        let bad = try retime.run("config", "set", "notify", "loud", "--json")
        #expect(bad.status == 2 && bad.errorCode == "config.invalidValue")
        #expect(try retime.run("config", "get", "colour").status == 2)
    }

    @Test("failures exit with the contract's code, one error line, and a stable JSON code", arguments: [
        (["start", "nope"], Int32(1), "group.notFound"),
        (["stop"], 1, "session.notActive"),
        (["pause"], 1, "session.notActive"),
        (["start", "--for", "25"], 2, "usage.invalidValue"),
        (["start", "--for", "25h"], 2, "session.invalidDuration"),
        (["group", "create", "x", "--block", "not a domain"], 2, "group.invalidTarget"),
        (["group", "create", "a/b"], 2, "group.invalidName"),
        (["group", "list", "--bogus"], 2, "usage.unknownOption"),
        (["start", "--for"], 2, "usage.missingValue"),
        (["frobnicate"], 2, "usage.unknownCommand"),
        (["start", "--strict"], 2, "session.strictNeedsEnd"),
        (["log", "--since", "2026-11-23", "--until", "2026-11-22"], 2, "usage.invalidValue"),
        (["report", "--since", "today", "--until", "today"], 2, "usage.invalidValue"),
        (["export", "--since", "2026-11-24", "--until", "2026-11-22T17:00:00Z"], 2, "usage.invalidValue"),
    ])
    func failures(arguments: [String], status: Int32, code: String) throws {
        let outcome = try retime.run(arguments + ["--json"])
        #expect(outcome.status == status)
        #expect(outcome.err.hasPrefix("retime: error: "))
        #expect(outcome.errorCode == code)
        #expect(outcome.out.isEmpty)
    }

    @Test("starting while a session is active fails with 1 and changes nothing")
    func alreadyActive() throws {
        let first = try retime.run("start", "--json").json["session"] as? [String: Any]
        let second = try retime.run("start", "--for", "5m", "--json")
        #expect(second.status == 1 && second.errorCode == "session.alreadyActive")
        #expect(second.err.contains("retime: error: an open-ended session is already active\n"), "\(second.err)")
        #expect((try retime.run("status", "--json").json["session"] as? [String: Any])?["id"] as? String == first?["id"] as? String)
        try retime.run("stop")
        let timed = try retime.run("start", "--for", "25m")
        let clock = try #require(timed.out.firstMatch(of: /until (?:\d{4}-\d\d-\d\d )?(\d\d:\d\d:\d\d)/)).1   // a date first near midnight
        let third = try retime.run("start", "--for", "5m")
        #expect(third.err.contains("a session is already active, until ") && third.err.contains("\(clock)\n"), "\(third.err)")
    }

    @Test("a strict session cannot be stopped or paused (exit 3)")
    func strict() throws {
        try retime.run("start", "--for", "1h", "--strict")
        let stop = try retime.run("stop", "--json")
        #expect(stop.status == 3 && stop.errorCode == "session.strict")
        #expect(try retime.run("pause").status == 3)
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        // Nobody moved the clock: status must not say so.
        #expect(!(try retime.run("status").out.contains("wall clock was moved")))
    }

    @Test("during a strict session its group cannot be weakened nor the shield changed (exit 3)")
    func strictWeakening() throws {
        try retime.run("group", "create", "work", "--block", "a.com", "--block", "b.com")
        try retime.run("start", "work", "--for", "1h", "--strict")
        for arguments in [["group", "unblock", "work", "a.com"], ["group", "rename", "work", "play"], ["group", "delete", "work"],
                          ["config", "set", "shield", "none"], ["config", "unset", "shield"]] {
            let outcome = try retime.run(arguments + ["--json"])
            #expect(outcome.status == 3, "\(arguments)")
            #expect(outcome.errorCode == "group.locked" || outcome.errorCode == "config.locked", "\(arguments)")
        }
        #expect(try retime.run("group", "block", "work", "c.com").status == 0, "strengthening is fine")
        #expect(try retime.run("config", "set", "notify", "on").status == 0, "other settings are fine")
        let group = try retime.run("group", "show", "work", "--json").json["group"] as? [String: Any]
        #expect(group?["targets"] as? [String] == ["a.com", "b.com", "c.com"])
    }

    @Test("faketime two hours ahead does not end a one-hour strict session", .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/faketime")))
    func faketimeCannotCheat() throws {
        try retime.run("start", "--for", "1h", "--strict")
        var cheat = retime
        cheat.launcher = ["/usr/bin/faketime", "-f", "+2h"]
        cheat.environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        let stop = try cheat.run("stop", "--json")
        #expect(stop.status == 3 && stop.errorCode == "session.strict")
        let status = try cheat.run("status", "--json").json
        #expect(status["active"] as? Bool == true)
        // Time left is the time really left, not the 0 s the moved clock implies.
        let remaining = (status["session"] as? [String: Any])?["remainingSeconds"] as? Double ?? 0
        #expect(remaining > 3_500, "\(status)")
        if RetimeProcess.isDynamicallyLinked {   // faketime reaches only a dynamically linked binary
            #expect(try cheat.run("status").out.contains("the wall clock was moved forward"))
        }
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        #expect((try retime.run("log", "--json").json["sessions"] as? [Any])?.isEmpty == true)
    }

    @Test("an expired session is completed at its planned end by the next command, and status says so")
    func reconcileFirst() throws {
        let started = try retime.run("start", "--for", "1s", "--json").json["session"] as? [String: Any]
        Thread.sleep(forTimeInterval: 1.2) // let the real one-second session expire
        #expect(try retime.run("status", "--json").json["active"] as? Bool == false)
        let ended = try #require((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first)
        #expect(ended["outcome"] as? String == "completed")
        #expect(ended["endedAt"] as? String == started?["plannedEnd"] as? String)
    }

    @Test("--version, help and completion need no data and touch none")
    func noData() throws {
        // Where no data directory is yet (RetimeProcess makes one).
        try FileManager.default.removeItem(atPath: retime.dataDirectory)
        #expect(try retime.run("--version").out.wholeMatch(of: /retime \d+\.\d+\.\d+\n/) != nil)
        #expect(try retime.run("help", "group", "create").out.contains("Usage: retime group create"))
        #expect(try retime.run("log", "--help").out.contains("--since DATE"))
        let misspelt = try retime.run("help", "group", "craete")
        #expect(misspelt.status == 2 && misspelt.err.hasSuffix("hint: did you mean 'group create'?\n"), "\(misspelt.err)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try retime.run("completion", shell)
            #expect(script.status == 0 && script.out.contains("group") && script.out.contains(shell == "fish" ? "-l for" : "--for"))
        }
        #expect(!FileManager.default.fileExists(atPath: retime.dataDirectory))
    }

    @Test("bash completion offers the user's groups and schedules where they go, and only an option's values after it",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func bashCompletion() throws {
        try retime.run("group", "create", "work")
        try retime.run("group", "create", "Deep Work")
        try retime.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "10:00")
        #expect(try retime.run("group", "list", "--names").out == "Deep Work\nwork\n")
        let script = try retime.run("completion", "bash").out
        // Each line: the words typed so far (the last is being completed); prints what would be offered.
        let cases: [([String], [String])] = [
            (["start", "D"], ["Deep\\ Work"]),
            (["start", "w"], ["work"]),
            (["schedule", "remove", ""], ["--passcode-stdin", "--data-dir", "--json", "--log-level", "--no-color", "--help", "--version", "mornings"]),
            (["log", "--group", ""], ["Deep\\ Work", "work"]),
            (["export", "--format", ""], ["json", "csv", "ics"]),
            (["start", "--for", ""], []),
            (["report", "--by", "w"], ["week"]),
            (["group", "block", "work", "w"], []),          // a site goes here, not a group
            (["start", "--for", "25m", "w"], ["work"]),     // an option's value is not the argument
        ]
        var lines = [script, "c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _retime; printf '%s\\n' \"${COMPREPLY[@]}\"; echo ---; }"]
        for (words, _) in cases {
            let quoted = ([RetimeProcess.executable.path, "--data-dir", retime.dataDirectory] + words).map { "'\($0)'" }
            lines.append("c " + quoted.joined(separator: " "))
        }
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-c", lines.joined(separator: "\n")]
        let out = Pipe()
        bash.standardOutput = out
        try bash.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bash.waitUntilExit()
        let offered = text.components(separatedBy: "---\n").dropLast().map { $0.split(separator: "\n").map(String.init) }
        #expect(offered.count == cases.count, "\(text)")
        for (index, (words, expected)) in cases.enumerated() where index < offered.count {
            #expect(offered[index] == expected, "\(words)")
        }
    }

    @Test("the data directory is 0700 and its files 0600")
    func permissions() throws {
        try retime.run("start")
        try retime.run("stop")
        let manager = FileManager.default
        func mode(_ path: String) -> Int { (try? manager.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)??.intValue ?? -1 }
        #expect(mode(retime.dataDirectory) == 0o700)
        for file in manager.subpaths(atPath: retime.dataDirectory) ?? [] {
            let path = retime.file(file)
            var isDirectory: ObjCBool = false
            #expect(manager.fileExists(atPath: path, isDirectory: &isDirectory))
            #expect(mode(path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(file)")
        }
    }
}
