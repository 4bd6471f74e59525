import Domain
import Foundation
import Testing

/// track, edit, delete and continue through the binary (cli.md, "History";
/// semantics.md, "History amendments"). Times are given as ISO-8601
/// instants, so nothing depends on the hour or the zone the tests run in.
@Suite("history amendments end to end")
struct HistoryAmendmentEndToEndTests {
    let retime = RetimeProcess()

    /// An instant `hours` before now, as an ISO-8601 text.
    static func ago(_ hours: Double) -> String { Timestamp.format(Date().addingTimeInterval(-hours * 3_600), fractionDigits: 0) }

    func sessions(_ retime: RetimeProcess) throws -> [[String: Any]] { try retime.loggedSessions() }

    func segmentBytes(_ retime: RetimeProcess) throws -> [String: Data] {
        let history = retime.file("history")
        var files: [String: Data] = [:]
        for device in try FileManager.default.contentsOfDirectory(atPath: history) {
            for file in try FileManager.default.contentsOfDirectory(atPath: history + "/" + device) where file.hasSuffix(".jsonl") && file != "amendments.jsonl" {
                files[device + "/" + file] = FileManager.default.contents(atPath: history + "/" + device + "/" + file)
            }
        }
        return files
    }

    @Test("track records a past session, completed and manual; bad times and unknown groups are refused")
    func track() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        let tracked = try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(1.5), "--tag", "deep", "--note", "forgot", "--json")
        #expect(tracked.status == 0, "\(tracked.err)")
        let session = try #require(tracked.json["session"] as? [String: Any])
        #expect(session["outcome"] as? String == "completed" && session["origin"] as? String == "manual")
        #expect(session["tags"] as? [String] == ["deep"] && session["note"] as? String == "forgot")
        let log = try retime.run("log")
        let id = try #require(session["id"] as? String)
        #expect(log.out.contains("\n  " + String(id.prefix(8)) + "  ") && log.out.contains("1h 30m") && log.out.contains("#deep"), "\(log.out)")

        #expect(try retime.run("track", "work", "--from", Self.ago(1), "--to", Self.ago(-1)).status == 2, "an end in the future")
        #expect(try retime.run("track", "work", "--from", Self.ago(1), "--to", Self.ago(2)).status == 2, "an end before the start")
        #expect(try retime.run("track", "work", "--from", Self.ago(1)).status == 2, "no --to")
        #expect(try retime.run("track", "nope", "--from", Self.ago(2), "--to", Self.ago(1)).status == 1, "no such group")
        #expect(try sessions(retime).count == 1, "nothing else recorded")
    }

    @Test("an edit that changes nothing writes nothing and says so (issue 29)")
    func noOpEdit() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("track", "work", "--from", Self.ago(2), "--to", Self.ago(1), "--note", "n").status == 0)
        let history = retime.dataDirectory + "/history"
        func files() -> [String: Data] {
            let paths = (FileManager.default.enumerator(atPath: history)?.allObjects as? [String]) ?? []
            return Dictionary(uniqueKeysWithValues: paths.map { ($0, FileManager.default.contents(atPath: history + "/" + $0) ?? Data()) })
        }
        let before = files()
        let same = try retime.run("edit", "@1", "--note", "n")
        #expect(same.status == 0 && same.out.hasPrefix("Nothing to change: "), "\(same.out)")
        #expect(files() == before, "nothing written")
        #expect(try retime.run("edit", "@1", "--note", "m").out.hasPrefix("Edited "))
    }

    @Test("a bare time a minute ahead is yesterday's, and an error about the times says so (issue 29)",
          .enabled(if: AuthEndToEndTests.hasFaketime, "needs faketime and a dynamically linked binary"))
    func timeReadAsYesterday() throws {
        var retime = retime
        // 20:08 in UTC, whatever the hour and zone the test runs in.
        retime.launcher = ["/usr/bin/faketime", "2026-11-24 20:08:00"]
        retime.environment["TZ"] = "UTC"
        retime.environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        try retime.run("group", "create", "work")
        #expect(try retime.run("track", "work", "--from", "19:50", "--to", "20:05").status == 0)
        let edit = try retime.run("edit", "@1", "--to", "20:09")
        #expect(edit.status == 2, "\(edit.err)")
        #expect(edit.err.contains("--to 20:09 was read as yesterday's, 2026-11-23 20:09, since today's is later than now"), "\(edit.err)")
        let track = try retime.run("track", "work", "--from", "19:00", "--to", "20:10")
        #expect(track.err.contains("--to 20:10 was read as yesterday's"), "\(track.err)")
    }

    @Test("edit by @N, prefix or id changes group, times, tags and note; delete removes; the month's lines are never rewritten")
    func editAndDelete() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("group", "create", "reading").status == 0)
        for hours in [5.0, 3.0] {
            #expect(try retime.run("track", "work", "--from", Self.ago(hours), "--to", Self.ago(hours - 1), "--tag", "a").status == 0)
        }
        let before = try segmentBytes(retime)
        let ids = try sessions(retime).compactMap { $0["id"] as? String }
        #expect(ids.count == 2)

        let edited = try retime.run("edit", "@1", "--group", "reading", "--from", Self.ago(3.5), "--tag", "b", "--untag", "a",
                                    "--note", "moved", "--json")
        #expect(edited.status == 0, "\(edited.err)")
        var log = try sessions(retime)
        #expect(log.first?["id"] as? String == ids[0] && log.first?["group"] as? String == "reading")
        #expect(log.first?["tags"] as? [String] == ["b"] && log.first?["note"] as? String == "moved")
        #expect((log.first?["focusedSeconds"] as? Double).map { abs($0 - 5_400) < 2 } == true, "3.5 h to 2 h ago: \(log)")
        #expect(try retime.run("edit", String(ids[1].prefix(6)), "--note", "by prefix").status == 0)
        #expect(try retime.run("edit", ids[1], "--tag", "c").status == 0)
        log = try sessions(retime)
        #expect(log.last?["note"] as? String == "by prefix" && log.last?["tags"] as? [String] == ["a", "c"])

        let deleted = try retime.run("delete", "@2")
        #expect(deleted.status == 0 && deleted.out.hasPrefix("Deleted \(ids[1].prefix(8))"), "\(deleted.out)")
        #expect(try sessions(retime).compactMap { $0["id"] as? String } == [ids[0]])
        let report = try retime.run("report", "--by", "group", "--json")
        #expect((report.json["buckets"] as? [[String: Any]])?.map { $0["key"] as? String } == ["reading"], "\(report.out)")
        #expect(try segmentBytes(retime) == before, "amendments are appended elsewhere; the sessions' lines stay as written")

        #expect(try retime.run("edit", "@5").status == 1, "no fifth session")
        #expect(try retime.run("edit", "abc").status == 2, "too short to be a prefix")
        #expect(try retime.run("delete", ids[1]).status == 1, "already deleted")
        #expect(try retime.run("edit", "@1", "--to", Self.ago(-1)).status == 2, "an end in the future")
    }

    @Test("continue starts a session like the last one: group, tags, note and planned length; --for overrides")
    func continueLast() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("start", "work", "--for", "25m", "--tag", "pomodoro", "--note", "chapter 3").status == 0)
        #expect(try retime.run("stop").status == 0)
        let continued = try retime.run("continue", "--json")
        #expect(continued.status == 0, "\(continued.err)")
        let session = try #require(continued.json["session"] as? [String: Any])
        #expect(session["group"] as? String == "work" && session["tags"] as? [String] == ["pomodoro"] && session["note"] as? String == "chapter 3")
        let planned = try #require((session["plannedEnd"] as? String).flatMap(Timestamp.parse))
        let started = try #require((session["startedAt"] as? String).flatMap(Timestamp.parse))
        #expect(abs(planned.timeIntervalSince(started) - 1_500) < 1, "25 minutes again")
        #expect(try retime.run("continue").status == 1, "a session is already active")
        #expect(try retime.run("stop").status == 0)
        let longer = try retime.run("continue", "@2", "--for", "50m", "--json")
        let again = try #require(longer.json["session"] as? [String: Any])
        let end = try #require((again["plannedEnd"] as? String).flatMap(Timestamp.parse))
        let start = try #require((again["startedAt"] as? String).flatMap(Timestamp.parse))
        #expect(abs(end.timeIntervalSince(start) - 3_000) < 1)
    }

    @Test("an edit corrects when a session ran, not what was planned: continue plans the length asked for at its start")
    func continueAfterEditedTimes() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3)).status == 0)
        // It really began half an hour later, and ran on a quarter of an hour.
        #expect(try retime.run("edit", "@1", "--from", Self.ago(3.5), "--to", Self.ago(2.75)).status == 0)
        let edited = try #require(try sessions(retime).first)
        let editedStart = try #require((edited["startedAt"] as? String).flatMap(Timestamp.parse))
        let editedEnd = try #require((edited["endedAt"] as? String).flatMap(Timestamp.parse))
        #expect(abs(editedEnd.timeIntervalSince(editedStart) - 2_700) < 1, "the edit took")
        #expect(edited["outcome"] as? String == "completed")
        let continued = try retime.run("continue", "--json")
        #expect(continued.status == 0, "\(continued.err)")
        let session = try #require(continued.json["session"] as? [String: Any])
        let planned = try #require((session["plannedEnd"] as? String).flatMap(Timestamp.parse))
        let started = try #require((session["startedAt"] as? String).flatMap(Timestamp.parse))
        #expect(abs(planned.timeIntervalSince(started) - 3_600) < 1, "the hour it was planned for, not the 45 minutes it ran")
    }

    @Test("history follows a group by identity: each session keeps the name it ran under, the name now beside it; one report row per group; old names still find it (issue 29)")
    func groupByIdentity() throws {
        #expect(try retime.run("group", "create", "writing").status == 0)
        #expect(try retime.run("track", "writing", "--from", Self.ago(5), "--to", Self.ago(4)).status == 0)
        #expect(try retime.run("group", "rename", "writing", "thesis").status == 0)
        #expect(try retime.run("track", "thesis", "--from", Self.ago(3), "--to", Self.ago(2.5)).status == 0)
        #expect(try sessions(retime).map { $0["group"] as? String } == ["thesis", "writing"], "the name each ran under")
        let log = try retime.run("log").out
        #expect(log.contains("writing (now thesis)") && log.components(separatedBy: "thesis").count == 3, "\(log)")
        func buckets() throws -> [String] {
            (try retime.run("report", "--by", "group", "--json").json["buckets"] as? [[String: Any]])?.compactMap { $0["key"] as? String } ?? []
        }
        #expect(try buckets() == ["thesis"], "one row for one group, under its name now")
        for name in ["thesis", "writing", "WRITING"] {
            let found = try retime.run("log", "--group", name, "--json")
            #expect(found.status == 0 && (found.json["sessions"] as? [Any])?.count == 2, "\(name): \(found.err)")
        }
        #expect(try retime.run("report", "--group", "writing", "--json").json["totalSessions"] as? Int == 2)
        let csv = try retime.run("log", "--csv").out
        #expect(csv.contains(",thesis,") && csv.contains(",writing,"), "\(csv)")

        #expect(try retime.run("group", "delete", "thesis").status == 0)
        let after = try retime.run("log").out
        #expect(after.contains("thesis (deleted)") && after.contains("writing (deleted)") && !after.contains("deleted group"), "\(after)")
        #expect(try buckets() == ["thesis"], "a deleted group under the last name it ran under")
        #expect(try retime.run("log", "--group", "thesis", "--json").json["sessions"] as? [Any] != nil, "a deleted group's name still finds its sessions")
        #expect(try retime.run("log", "--group", "nothing").status == 1)
    }

    @Test("log: by day, newest first, each with its total; start and end times; the last 7 days unless told otherwise, and it says so (issue 29)",
          .enabled(if: AuthEndToEndTests.hasFaketime, "needs faketime and a dynamically linked binary"))
    func logByDay() throws {
        var retime = retime
        retime.launcher = ["/usr/bin/faketime", "2026-11-24 20:08:00"]
        retime.environment["TZ"] = "UTC"
        try retime.run("group", "create", "work")
        for (from, to) in [("2026-11-24T09:00:00Z", "2026-11-24T10:00:00Z"), ("2026-11-24T11:00:00Z", "2026-11-24T11:30:00Z"),
                           ("2026-11-22T23:30:00Z", "2026-11-23T00:15:00Z"), ("2026-11-10T10:00:00Z", "2026-11-10T11:00:00Z")] {
            #expect(try retime.run("track", "work", "--from", from, "--to", to).status == 0)
        }
        let log = try retime.run("log").out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(log.count > 2, "log printed too little to read on: \(log)")   // a failure, not a trap that ends the whole run
        #expect(log.first == "Tue 2026-11-24  1h 30m in 2 sessions", "\(log)")
        #expect(log[1].contains("  11:00-11:30    30m ") && log[2].contains("  09:00-10:00    1h "), "newest first, with times: \(log)")
        #expect(log.contains("Sun 2026-11-22  45m in 1 session") && log.contains { $0.contains("23:30-00:15+1") }, "\(log)")
        #expect(!log.contains { $0.contains("2026-11-10") }, "older than 7 days: not shown")
        #expect(log.last(where: { !$0.isEmpty }) == "The last 7 days; --since DATE or --limit N shows more.")
        #expect(try retime.run("log", "--since", "2026-11-01").out.contains("Tue 2026-11-10  1h in 1 session"))
        #expect(try (retime.run("log", "--json").json["sessions"] as? [Any])?.count == 4, "a script gets every session")
        let report = try retime.run("report").out
        #expect(report.contains("2026-11-24") && !report.contains("2026-11-10") && report.hasSuffix("The last 7 days; --since DATE shows more.\n"),
                "\(report)")
        #expect(try retime.run("report", "--json").json["totalSessions"] as? Int == 4)
    }

    @Test("report --by group,tag: each group's time by tag in one table (issue 29)")
    func groupByTag() throws {
        for name in ["work", "play"] { #expect(try retime.run("group", "create", name).status == 0) }
        #expect(try retime.run("track", "work", "--from", Self.ago(6), "--to", Self.ago(5), "--tag", "deep", "--tag", "writing").status == 0)
        #expect(try retime.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3.5), "--tag", "deep").status == 0)
        #expect(try retime.run("track", "play", "--from", Self.ago(3), "--to", Self.ago(2.75)).status == 0)
        let report = try retime.run("report", "--by", "group,tag", "--json")
        #expect(report.status == 0, "\(report.err)")
        let buckets = Dictionary(uniqueKeysWithValues: (report.json["buckets"] as? [[String: Any]] ?? []).map {
            ($0["key"] as? String ?? "", $0["focusedSeconds"] as? Double ?? -1)
        })
        #expect(buckets == ["work / deep": 5_400, "work / writing": 3_600, "play / (no tag)": 900], "\(buckets)")
        #expect(report.json["totalFocusedSeconds"] as? Double == 6_300, "each session counted once in the total")
        #expect(try retime.run("report", "--by", "group,tag").out.hasPrefix("group,tag"))
    }

    @Test("CSV: a tag holding ';' is escaped, so it cannot be told for two tags (issue 29)")
    func csvTags() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("track", "work", "--from", Self.ago(2), "--to", Self.ago(1), "--tag", "a;b", "--tag", "c").status == 0)
        #expect(try retime.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3), "--tag", "a", "--tag", "b", "--tag", "c").status == 0)
        let csv = try retime.run("log", "--csv").out
        #expect(csv.contains(",a\\;b;c,") && csv.contains(",a;b;c,"), "\(csv)")
    }

    @Test("log and report filter by --group and --tag; report --by tag counts a session in each of its tags, the total once")
    func filters() throws {
        for name in ["work", "play"] { #expect(try retime.run("group", "create", name).status == 0) }
        #expect(try retime.run("track", "work", "--from", Self.ago(6), "--to", Self.ago(5), "--tag", "deep", "--tag", "writing").status == 0)
        #expect(try retime.run("track", "play", "--from", Self.ago(4), "--to", Self.ago(3.5), "--tag", "deep").status == 0)
        #expect(try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2.75)).status == 0)
        func ids(_ arguments: String...) throws -> Int { try (retime.run(["log", "--json"] + arguments).json["sessions"] as? [Any])?.count ?? -1 }
        #expect(try ids("--tag", "deep") == 2 && ids("--tag", "writing") == 1 && ids("--group", "play") == 1)
        #expect(try ids("--tag", "deep", "--limit", "1") == 1 && ids("--tag", "deep", "--group", "work") == 1 && ids("--tag", "none") == 0)
        #expect(try retime.run("log", "--group", "nope").status == 1)

        let byTag = try retime.run("report", "--by", "tag", "--json")
        let buckets = Dictionary(uniqueKeysWithValues: (byTag.json["buckets"] as? [[String: Any]] ?? []).map {
            ($0["key"] as? String ?? "", $0["focusedSeconds"] as? Double ?? -1)
        })
        #expect(buckets.mapValues { ($0 / 60).rounded() } == ["deep": 90, "writing": 60, "(no tag)": 15], "\(byTag.out)")
        #expect((byTag.json["totalFocusedSeconds"] as? Double).map { ($0 / 60).rounded() } == 105, "each session once")
        #expect(byTag.json["totalSessions"] as? Int == 3)
        let deep = try retime.run("report", "--by", "group", "--tag", "deep", "--json")
        #expect((deep.json["buckets"] as? [[String: Any]])?.compactMap { $0["key"] as? String }.sorted() == ["play", "work"])
        let play = try retime.run("report", "--group", "play", "--json")
        #expect((play.json["totalFocusedSeconds"] as? Double).map { ($0 / 60).rounded() } == 30)
    }

    @Test("export --format json is a whole backup: imported into an empty data directory, every document reads back the same")
    func backupRoundTrip() throws {
        let original = retime, restored = RetimeProcess()
        #expect(try original.run("group", "create", "work", "--block", "example.com", "--block", "app:steam").status == 0)
        #expect(try original.run("group", "create", "unused").status == 0)
        #expect(try original.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00", "--days", "weekdays",
                                 "--warn", "5m").status == 0)
        #expect(try original.run("config", "set", "notify", "off").status == 0)
        #expect(try original.run("config", "set", "defaultGroup", "work").status == 0)
        #expect(try original.run("auth", "set-passcode", "--stdin", input: "correct horse\n").status == 0)
        #expect(try original.run("track", "work", "--from", Self.ago(5), "--to", Self.ago(4), "--tag", "deep").status == 0)
        #expect(try original.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2)).status == 0)
        #expect(try original.run("edit", "@1", "--note", "amended").status == 0)
        #expect(try original.run("delete", "@2").status == 0)
        #expect(try original.run("start", "work", "--for", "1m").status == 0)
        #expect(try original.run("stop").status == 0)

        let exported = try original.run("export")
        #expect(exported.status == 0)
        #expect(!exported.out.contains("$y$") && !exported.out.lowercased().contains("passcode"), "never the passcode")
        let path = original.dataDirectory + "-backup.json"
        try exported.out.write(toFile: path, atomically: true, encoding: .utf8)
        let imported = try restored.run("import", "--from", "retime", path)
        #expect(imported.status == 0 && imported.out.contains("Created 2 groups") && imported.out.contains("Restored 1 schedule and 2 settings"),
                "\(imported.out) \(imported.err)")

        func document(_ retime: RetimeProcess, _ arguments: [String]) throws -> NSDictionary {
            var json = try retime.run(arguments + ["--json"]).json
            json.removeValue(forKey: "exportedAt")
            // hooks.dir is not set: its default is inside each data directory.
            if var config = json["config"] as? [String: Any] {
                config.removeValue(forKey: "hooks.dir")
                json["config"] = config
            }
            return json as NSDictionary
        }
        for command in [["export"], ["group", "list"], ["schedule", "list"], ["config", "list"], ["log"], ["report", "--by", "group"]] {
            let (mine, theirs) = (try document(original, command), try document(restored, command))
            #expect(mine == theirs, "\(command): \(mine) vs \(theirs)")
        }
        #expect(try restored.run("auth", "status", "--json").json["passcodeSet"] as? Bool == false)
        let again = try restored.run("import", "--from", "retime", path)
        #expect(again.out.contains("Imported 0 of 2") && !again.out.contains("Restored"), "a second import adds nothing: \(again.out)")
    }

    @Test("a backup edited by hand: schedules and settings the commands would refuse are left out, the rest restored")
    func editedBackup() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        #expect(try retime.run("schedule", "add", "mornings", "--group", "work", "--from", "09:00", "--to", "12:00").status == 0)
        #expect(try retime.run("config", "set", "notify", "off").status == 0)
        var backup = try #require(try JSONSerialization.jsonObject(with: Data(retime.run("export").out.utf8)) as? [String: Any])
        var schedules = try #require(backup["schedules"] as? [[String: Any]])
        var bad = schedules[0]
        bad["id"] = UUID().uuidString.lowercased()
        bad["name"] = "evil\u{1B}[2J"
        var empty = schedules[0]
        empty["id"] = UUID().uuidString.lowercased()
        empty["name"] = "empty"
        empty["to"] = empty["from"]
        schedules += [bad, empty]
        backup["schedules"] = schedules
        backup["settings"] = ["notify": "off", "shield": "everything", "hooks.dir": "relative/dir", "no.such.key": "x"]
        let path = retime.dataDirectory + "-edited.json"
        try JSONSerialization.data(withJSONObject: backup).write(to: URL(fileURLWithPath: path))

        let restored = RetimeProcess()
        let imported = try restored.run("import", "--from", "retime", path, "--json")
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.json["schedulesRestored"] as? Int == 1 && imported.json["settingsRestored"] as? Int == 1, "\(imported.out)")
        let names = (try restored.run("schedule", "list", "--json").json["schedules"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["mornings"])
        #expect(try restored.run("config", "get", "shield").out.trimmingCharacters(in: .whitespacesAndNewlines) == "auto")
    }
}
