import Domain
import Foundation
import Testing

/// report, export and import through the built binary, on files written in
/// each tool's documented format.
@Suite("history end to end")
struct HistoryEndToEndTests {
    var retime = RetimeProcess()

    /// Writes a Watson frames file; each frame is (start ISO, end ISO, project, 32-hex id).
    func watsonFile(_ frames: [(String, String, String, String)], name: String = "frames") throws -> String {
        let body = frames.map { start, end, project, id in
            "[\(Int(Timestamp.parse(start)!.timeIntervalSince1970)), \(Int(Timestamp.parse(end)!.timeIntervalSince1970)), \"\(project)\", \"\(id)\", [\"t\"], 0]"
        }
        let path = retime.dataDirectory + "-" + name
        try ("[\n" + body.joined(separator: ",\n") + "\n]\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func hex(_ n: Int) -> String { String(format: "%032x", n) }

    @Test("durations are shown to the nearest second: 39.997 s is 40s in track, log and report (issue 29)")
    func nearestSecond() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        let track = try retime.run("track", "work", "--from", "2026-11-20T10:00:00.000Z", "--to", "2026-11-20T10:00:39.997Z")
        #expect(track.status == 0 && track.out.contains("(40s)"), "\(track.out) \(track.err)")
        let log = try retime.run("log", "--since", "2026-11-19", "--until", "2026-11-21")
        #expect(log.out.contains(" 40s "), "\(log.out)")
        let report = try retime.run("report", "--since", "2026-11-19", "--until", "2026-11-21")
        #expect(report.out.contains("Total 40s focused"), "\(report.out)")
    }

    @Test("one window of times for history: track, edit and import refuse year 1 and 1969 alike; a partial import exits 1 and adds up (issue 29)")
    func oneWindow() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        for from in ["0001-01-01 10:00", "1969-12-31T10:00:00Z"] {
            let track = try retime.run("track", "work", "--from", from, "--to", "1970-01-01T09:00:00Z")
            #expect(track.status == 2 && track.err.contains("a session's times lie in the years 1970-2199"), "\(from): \(track.err)")
        }
        #expect(try retime.run("track", "work", "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        let edit = try retime.run("edit", "@1", "--from", "1969-12-31T23:30:00Z")
        #expect(edit.status == 2 && edit.err.contains("the start is not"), "\(edit.err)")

        // Six frames, five of them unusable: the summary adds up, exit 1.
        let path = try watsonFile([("2026-11-19T08:00:00Z", "2026-11-19T09:00:00Z", "deep", Self.hex(1)),
                                   ("2026-11-19T10:00:00Z", "2026-11-19T09:00:00Z", "deep", Self.hex(2))], name: "partial")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "\n]", with: ",\n[1, 2],\n\"x\",\n[-62135596800, -62135593200, \"deep\", \"\(Self.hex(3))\", [], 0],\n{}\n]")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let imported = try retime.run("import", "--from", "watson", path, "--json")
        #expect(imported.status == 1 && imported.errorCode == "import.skipped", "\(imported.err)")
        let json = imported.json
        let skipped = (json["skipped"] as? [Any])?.count ?? -1
        #expect(json["read"] as? Int == 6 && json["imported"] as? Int == 1 && skipped == 5, "\(imported.out)")
        #expect((json["skipped"] as? [[String: Any]])?.contains { ($0["message"] as? String ?? "").contains("1970-2199") } == true)

        // One frame on its own, not in a list: one clear refusal, not six "line 1" problems.
        let single = retime.dataDirectory + "-single"
        try "[1763625600, 1763629200, \"deep\", \"\(Self.hex(4))\", [], 1763629200]\n".write(toFile: single, atomically: true, encoding: .utf8)
        let one = try retime.run("import", "--from", "watson", single)
        #expect(one.status == 2 && one.err.contains("a single frame, not an array of frames"), "\(one.err)")
    }

    @Test("report: JSON per the spec, days of 23 and 25 hours in the local zone, weeks, groups and CSV")
    func report() throws {
        var retime = retime
        retime.environment["TZ"] = "Europe/Berlin"
        // 2026-03-28 23:00 to 2026-03-30 01:00 local (spring forward on the 29th) in two sessions (one
        // lasts at most 24 hours), and two sessions on 2026-11-20.
        let path = try watsonFile([("2026-03-28T22:00:00Z", "2026-03-29T10:00:00Z", "deep", Self.hex(1)),
                                   ("2026-03-29T10:00:00Z", "2026-03-29T23:00:00Z", "deep", Self.hex(4)),
                                   ("2026-11-20T08:00:00Z", "2026-11-20T09:00:00Z", "deep", Self.hex(2)),
                                   ("2026-11-20T10:00:00Z", "2026-11-20T10:30:00Z", "mail, chat", Self.hex(3))])
        #expect(try retime.run("import", "--from", "watson", path).status == 0)
        let days = try retime.run("report", "--since", "2026-03-28", "--until", "2026-03-31", "--json")
        #expect(days.status == 0)
        #expect(Set(days.json.keys).isSuperset(of: ["schema", "since", "until", "by", "buckets", "totalFocusedSeconds"]))
        #expect(days.json["by"] as? String == "day" && (days.json["since"] as? String)?.hasPrefix("2026-03-28T00:00:00") == true)
        let buckets = try #require(days.json["buckets"] as? [[String: Any]])
        #expect(buckets.map { $0["key"] as? String } == ["2026-03-28", "2026-03-29", "2026-03-30"])
        #expect(buckets.map { $0["focusedSeconds"] as? Double } == [3_600, 23 * 3_600, 3_600])
        #expect(buckets.map { $0["sessions"] as? Int } == [1, 1, 0])
        #expect(days.json["totalFocusedSeconds"] as? Double == Double(25 * 3_600))

        let weeks = try retime.run("report", "--by", "week", "--since", "2026-11-16", "--until", "2026-11-23", "--json")
        let week = try #require((weeks.json["buckets"] as? [[String: Any]])?.first)
        #expect(week["key"] as? String == "2026-W47" && week["focusedSeconds"] as? Double == 5_400 && week["sessions"] as? Int == 2)

        let groups = try retime.run("report", "--by", "group", "--csv")
        #expect(groups.out == "key,focusedSeconds,sessions,completed,stopped\ndeep,93600,3,3,0\n\"mail, chat\",1800,1,1,0\n")

        let chart = try retime.run("report", "--since", "2026-11-19", "--until", "2026-11-21")
        #expect(chart.out.contains("2026-11-20  Fri       1h 30m         2       100%  █") && chart.out.contains("Total 1h 30m focused in 2 sessions, 100% completed."),
                "\(chart.out)")
        let bad = try retime.run("report", "--by", "month", "--json")
        #expect(bad.status == 2 && bad.errorCode == "usage.invalidValue")
    }

    @Test("import from Watson: twice adds nothing; malformed frames are listed by line and skipped")
    func importWatson() throws {
        let path = retime.dataDirectory + "-frames"
        try """
        [
         [1735884000, 1735887600, "writing", "\(Self.hex(7))", ["book"], 0],
         [1735890000, 1735880000, "writing", "\(Self.hex(8))", [], 0],
         ["x"],
         [1735970400, 1735974000, "code", "\(Self.hex(9))", [], 0]
        ]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let first = try retime.run("import", "--from", "watson", path, "--json")
        #expect(first.status == 1 && first.errorCode == "import.skipped" && first.json["imported"] as? Int == 2, "skipped two: exit 1")
        #expect((first.json["groupsCreated"] as? [String])?.sorted() == ["code", "writing"])
        let skipped = try #require(first.json["skipped"] as? [[String: Any]])
        #expect(skipped.map { $0["line"] as? Int } == [3, 4])
        let second = try retime.run("import", "--from", "watson", path, "--json")
        #expect(second.json["imported"] as? Int == 0 && second.json["alreadyPresent"] as? Int == 2)
        let log = try #require(try retime.run("log", "--json").json["sessions"] as? [[String: Any]])
        #expect(log.count == 2 && log.allSatisfy { $0["origin"] as? String == "import:watson" })
        #expect(Set(log.compactMap { $0["group"] as? String }) == ["writing", "code"])
    }

    @Test("Timewarrior's group by a rule: --group NAME, or --group-tag-prefix project: (tags are sorted, so the first is not the user's choice) (issue 29)")
    func timewarriorGrouping() throws {
        let directory = retime.dataDirectory + "-timew-rule"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // As Timewarrior writes them: tags in sorted order.
        try "inc 20250105T060000Z - 20250105T063000Z # deep project:thesis\ninc 20250106T060000Z - 20250106T070000Z # admin\n"
            .write(toFile: directory + "/2025-01.data", atomically: true, encoding: .utf8)
        let byPrefix = try retime.run("import", "--from", "timewarrior", directory, "--group-tag-prefix", "project:", "--untagged-group", "misc")
        #expect(byPrefix.status == 0, "\(byPrefix.err)")
        let sessions = try retime.run("log", "--since", "2025-01-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        let groups = Dictionary(uniqueKeysWithValues: sessions.map { (($0["group"] as? String) ?? "", ($0["tags"] as? [String]) ?? []) })
        #expect(groups == ["thesis": ["deep"], "misc": ["admin"]], "\(groups)")

        let other = RetimeProcess()
        #expect(try other.run("import", "--from", "timewarrior", directory, "--group", "work").status == 0)
        let all = try other.run("log", "--since", "2025-01-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(all.allSatisfy { $0["group"] as? String == "work" } && all.contains { $0["tags"] as? [String] == ["deep", "project:thesis"] }, "\(all)")
        #expect(try other.run("import", "--from", "watson", directory, "--group", "work").status == 2, "for Timewarrior only")
    }

    @Test("a backup whose sessions belong to a deleted group restores them under that group's id and name, making no group 'imported' (issue 29)")
    func deletedGroupRoundTrip() throws {
        #expect(try retime.run("group", "create", "news").status == 0)
        #expect(try retime.run("track", "news", "--from", "2026-11-20T10:00:00Z", "--to", "2026-11-20T11:00:00Z").status == 0)
        #expect(try retime.run("group", "delete", "news").status == 0)
        let backup = retime.dataDirectory + "-backup.json"
        try retime.run("export", "--format", "json").out.write(toFile: backup, atomically: true, encoding: .utf8)
        let elsewhere = RetimeProcess()
        #expect(try elsewhere.run("import", "--from", "retime", backup).status == 0)
        let groups = try elsewhere.run("group", "list", "--json").json["groups"] as? [[String: Any]] ?? []
        #expect(groups.isEmpty, "no group 'imported' made: \(groups)")
        let original = try retime.run("log", "--since", "2026-11-01", "--json").json["sessions"] as? [[String: Any]]
        let restored = try elsewhere.run("log", "--since", "2026-11-01", "--json").json["sessions"] as? [[String: Any]]
        #expect(restored?.first?["group"] as? String == "news" && restored?.first?["groupId"] as? String == original?.first?["groupId"] as? String)
        #expect(try elsewhere.run("log", "--since", "2026-11-01").out.contains("news (deleted)"))
    }

    @Test("re-importing entries changed in Timewarrior or Watson since updates their sessions, never adds a second copy (issue 29)")
    func reimportChanged() throws {
        let directory = retime.dataDirectory + "-timew-edit"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let month = directory + "/2025-01.data"
        try "inc 20250105T060000Z - 20250105T063000Z # deep\ninc 20250106T060000Z - 20250106T070000Z # deep\n"
            .write(toFile: month, atomically: true, encoding: .utf8)
        #expect(try retime.run("import", "--from", "timewarrior", directory).status == 0)
        // `timew tag @2 extra` and `timew annotate @1 "chapter 3"`, as Timewarrior writes them.
        try "inc 20250105T060000Z - 20250105T063000Z # deep extra\ninc 20250106T060000Z - 20250106T070000Z # deep # \"chapter 3\"\n"
            .write(toFile: month, atomically: true, encoding: .utf8)
        let again = try retime.run("import", "--from", "timewarrior", directory, "--json")
        #expect(again.status == 0 && again.json["updated"] as? Int == 2 && again.json["imported"] as? Int == 0, "\(again.out) \(again.err)")
        let sessions = try retime.run("log", "--since", "2025-01-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 2, "no second copy: \(sessions)")
        #expect(sessions.contains { $0["tags"] as? [String] == ["extra"] } && sessions.contains { $0["note"] as? String == "chapter 3" }, "\(sessions)")
        #expect(try retime.run("import", "--from", "timewarrior", directory, "--json").json["alreadyPresent"] as? Int == 2, "a third time: nothing")

        // `timew modify start @1 06:15`: the interval that replaced the old one is over its time.
        try "inc 20250105T060000Z - 20250105T063000Z # deep extra\ninc 20250106T061500Z - 20250106T070000Z # deep # \"chapter 3\"\n"
            .write(toFile: month, atomically: true, encoding: .utf8)
        let moved = try retime.run("import", "--from", "timewarrior", directory, "--json")
        #expect(moved.status == 0 && moved.json["updated"] as? Int == 1 && moved.json["imported"] as? Int == 0, "\(moved.out) \(moved.err)")
        var log = try retime.run("log", "--since", "2025-01-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(log.count == 2 && log.contains { $0["startedAt"] as? String == "2025-01-06T06:15:00Z" }, "moved, not copied: \(log)")

        // `timew move @2 2025-01-07T06:00`: nothing ties the new interval to the old one; the old is counted, not hidden.
        try "inc 20250106T061500Z - 20250106T070000Z # deep # \"chapter 3\"\ninc 20250107T060000Z - 20250107T063000Z # deep extra\n"
            .write(toFile: month, atomically: true, encoding: .utf8)
        let away = try retime.run("import", "--from", "timewarrior", directory)
        #expect(away.status == 0 && away.prose.contains("1 session imported earlier from timewarrior is no longer in its data"), "\(away.out)")
        #expect(away.out.split(separator: "\n").allSatisfy { $0.count <= 80 }, "wrapped to 80 columns: \(away.out)")
        #expect(try retime.run("import", "--from", "timewarrior", directory, "--json").json["goneFromSource"] as? Int == 1)
        #expect(try retime.run("delete", "@3").status == 0, "the user removes the old one")
        log = try retime.run("log", "--since", "2025-01-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(log.count == 2)
        #expect(try retime.run("import", "--from", "timewarrior", directory, "--json").json["goneFromSource"] as? Int == 0)

        // Watson: the frame keeps its id; its tags and end changed.
        let frames = try watsonFile([("2026-11-19T08:00:00Z", "2026-11-19T09:00:00Z", "writing", Self.hex(42))], name: "edit-frames")
        #expect(try retime.run("import", "--from", "watson", frames).status == 0)
        try String(contentsOfFile: frames, encoding: .utf8).replacingOccurrences(of: "[\"t\"]", with: "[\"t\", \"book\"]")
            .write(toFile: frames, atomically: true, encoding: .utf8)
        let watson = try retime.run("import", "--from", "watson", frames)
        #expect(watson.status == 0 && watson.out.contains("Imported 0 of 1 entry from watson (1 updated, changed in watson since)."), "\(watson.out)")
        let edited = try retime.run("log", "--since", "2026-11-19", "--until", "2026-11-20", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(edited.count == 1 && edited.first?["tags"] as? [String] == ["t", "book"], "\(edited)")
    }

    @Test("a Timewarrior interval over two intervals gone from its data is refused, not guessed at (exit 1), and nothing is lost")
    func reimportAmbiguous() throws {
        let directory = retime.dataDirectory + "-timew-join"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let month = directory + "/2025-03.data"
        try "inc 20250303T060000Z - 20250303T063000Z # deep\ninc 20250303T070000Z - 20250303T073000Z # deep\n"
            .write(toFile: month, atomically: true, encoding: .utf8)
        #expect(try retime.run("import", "--from", "timewarrior", directory).status == 0)
        try "inc 20250303T061500Z - 20250303T071500Z # deep\n".write(toFile: month, atomically: true, encoding: .utf8)
        let joined = try retime.run("import", "--from", "timewarrior", directory)
        #expect(joined.status == 1 && joined.out.contains("overlaps 2 intervals imported earlier"), "\(joined.out) \(joined.err)")
        let log = try retime.run("log", "--since", "2025-03-01", "--until", "2025-04-01", "--json").json["sessions"] as? [[String: Any]] ?? []
        #expect(log.count == 2, "the two sessions stay, no third: \(log)")
    }

    @Test("import from Timewarrior: a data directory of month files; open intervals are reported")
    func importTimewarrior() throws {
        let directory = retime.dataDirectory + "-timew"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "inc 20250105T060000Z - 20250105T063000Z # deep \"other tag\"\ninc 20250106T060000Z # open\n"
            .write(toFile: directory + "/2025-01.data", atomically: true, encoding: .utf8)
        try "inc 20250201T060000Z - 20250201T070000Z # deep\n".write(toFile: directory + "/2025-02.data", atomically: true, encoding: .utf8)
        try "deep\n".write(toFile: directory + "/tags.data", atomically: true, encoding: .utf8)
        let imported = try retime.run("import", "--from", "timewarrior", directory)
        #expect(imported.status == 1 && imported.errorCode == nil, "an entry was skipped: exit 1")
        #expect(imported.err.contains("1 of 3 entries were skipped"), "\(imported.err)")
        #expect(imported.out.contains("Imported 2 of 3 entries from timewarrior (1 skipped).")
                && imported.out.contains("line 2: 2025-01.data: an open interval"), "\(imported.out)")
        #expect(try retime.run("import", "--from", "timewarrior", directory, "--json").json["imported"] as? Int == 0)
        let report = try retime.run("report", "--by", "group", "--json").json["buckets"] as? [[String: Any]]
        #expect(report?.first?["key"] as? String == "deep" && report?.first?["focusedSeconds"] as? Double == 5_400)
    }

    @Test("export json, import it elsewhere: the same history, to the nanosecond, with the groups and their targets")
    func exportImportRoundTrip() throws {
        try retime.run("group", "create", "work", "--block", "slack.com")
        try retime.run("start", "work", "--for", "25m", "--tag", "a,b", "--note", "line one\nline two")
        try retime.run("pause")
        try retime.run("resume")
        try retime.run("stop")
        let exported = try retime.run("export")
        #expect(exported.status == 0 && exported.out.hasPrefix("{"))
        let file = retime.dataDirectory + "-export.json"
        try exported.out.write(toFile: file, atomically: true, encoding: .utf8)
        let elsewhere = RetimeProcess()
        let imported = try elsewhere.run("import", "--from", "retime", file, "--json")
        #expect(imported.json["imported"] as? Int == 1 && imported.json["groupsCreated"] as? [String] == ["work"])
        let sessions = { (r: RetimeProcess) throws -> [Any] in
            (try JSONSerialization.jsonObject(with: Data(try r.run("export").out.utf8)) as? [String: Any])?["sessions"] as? [Any] ?? []
        }
        #expect(NSArray(array: try sessions(elsewhere)).isEqual(to: try sessions(retime)), "every field, exactly")
        let group = try elsewhere.run("group", "show", "work", "--json").json["group"] as? [String: Any]
        #expect(group?["targets"] as? [String] == ["slack.com"])
        let withJSONFlag = try JSONSerialization.jsonObject(with: Data(try retime.run("export", "--json").out.utf8)) as? [String: Any]
        #expect(withJSONFlag?["format"] as? String == "retime-export", "--json prints the same export document")
    }

    @Test("export csv has a header and a row per session")
    func exportCSV() throws {
        let path = try watsonFile([("2026-11-20T08:00:00Z", "2026-11-20T09:00:00Z", "deep", Self.hex(1)),
                                   ("2026-11-21T08:00:00Z", "2026-11-21T09:00:00Z", "deep", Self.hex(2))])
        try retime.run("import", "--from", "watson", path)
        let csv = try retime.run("export", "--format", "csv", "--since", "2026-11-21").out.split(separator: "\n")
        #expect(csv.first?.hasPrefix("id,group,groupId,startedAt") == true && csv.count == 2)
        #expect(try retime.run("export", "--format", "csv", "--json").status == 2)
        #expect(try retime.run("export", "--format", "pdf").status == 2)
    }

    @Test("export ics: valid iCalendar with sessions and weekly schedules, folded, escaped, with a VTIMEZONE")
    func exportICS() throws {
        var retime = retime
        retime.environment["TZ"] = "America/New_York"
        let directory = retime.dataDirectory + "-timew"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let note = "Überlegungen; zu Kapitel 3, Teil \\\"b\\\" — sehr lang, damit die Zeile gefaltet werden muss: äöü ÄÖÜ ß"
        try "inc 20250105T060000Z - 20250105T063000Z # \"deep, focus\" # \"\(note)\"\n"
            .write(toFile: directory + "/2025-01.data", atomically: true, encoding: .utf8)
        try retime.run("import", "--from", "timewarrior", directory)
        try retime.run("schedule", "add", "mornings", "--group", "deep, focus", "--from", "09:00", "--to", "12:00", "--days", "weekdays")
        let ics = try retime.run("export", "--format", "ics").out
        let calendar = try ICalendarCheck.parse(ics)
        let events = calendar.components("VEVENT")
        #expect(events.count == 2)
        let session = try #require(events.first { $0["RRULE"] == nil })
        #expect(session["SUMMARY"] == "Focus: deep, focus")
        #expect(session["DTSTART"] == "20250105T060000Z" && session["DTEND"] == "20250105T063000Z")
        #expect(session["DESCRIPTION"]?.contains("Überlegungen; zu Kapitel 3, Teil \"b\"") == true)
        let schedule = try #require(events.first { $0["RRULE"] != nil })
        #expect(schedule["RRULE"] == "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
        #expect(schedule.parameters["DTSTART"] == "TZID=America/New_York" && schedule["DTSTART"]?.hasSuffix("T090000") == true)
        #expect(calendar.components("VTIMEZONE").first?["TZID"] == "America/New_York")
        #expect(calendar.foldedLines > 0, "the long description was folded")
    }

    @Test("two devices' histories copied into one folder show the union, each session once")
    func deviceMerge() throws {
        let laptop = RetimeProcess(), desktop = RetimeProcess()
        let shared = ("2026-11-18T08:00:00Z", "2026-11-18T09:00:00Z", "deep", Self.hex(100))
        var fileFor = self
        fileFor.retime = laptop
        try laptop.run("import", "--from", "watson", try fileFor.watsonFile([shared, ("2026-11-19T08:00:00Z", "2026-11-19T09:00:00Z", "deep", Self.hex(101))]))
        fileFor.retime = desktop
        try desktop.run("import", "--from", "watson", try fileFor.watsonFile([shared, ("2026-11-20T08:00:00Z", "2026-11-20T10:00:00Z", "deep", Self.hex(102))]))
        // A file-sync engine copies the desktop's device folder into the laptop's history.
        let source = desktop.file("history")
        for device in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + device, toPath: laptop.file("history/" + device))
        }
        let log = try #require(try laptop.run("log", "--json").json["sessions"] as? [[String: Any]])
        #expect(log.count == 3, "the shared session once")
        #expect(Set(log.compactMap { $0["id"] as? String }).count == 3)
        let total = try laptop.run("report", "--json").json["totalFocusedSeconds"] as? Double
        #expect(total == Double(4 * 3_600))
    }

    @Test("import failures: a missing path exits 4, the wrong format 2, an unknown tool 2")
    func importFailures() throws {
        let missing = try retime.run("import", "--from", "watson", retime.dataDirectory + "-nothing", "--json")
        #expect(missing.status == 4 && missing.errorCode == "import.unreadable")
        let path = retime.dataDirectory + "-notjson"
        try "hello".write(toFile: path, atomically: true, encoding: .utf8)
        let wrong = try retime.run("import", "--from", "watson", path, "--json")
        #expect(wrong.status == 2 && wrong.errorCode == "import.invalidFormat")
        #expect(try retime.run("import", "--from", "toggl", path).status == 2)
        #expect(try retime.run("import", path).status == 2)
    }
}
