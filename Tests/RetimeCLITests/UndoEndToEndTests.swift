import Domain
import Foundation
import Testing

/// `retime undo` through the binary (docs/history.md, "Undo"): each history
/// command's change reverted, one further back each run, durable against
/// kills and safe against other processes. Times are ISO-8601 instants
/// relative to now, so nothing depends on the hour or the zone.
@Suite("undo end to end")
struct UndoEndToEndTests {
    let retime = RetimeProcess()

    static func ago(_ hours: Double) -> String { HistoryAmendmentEndToEndTests.ago(hours) }

    func sessions() throws -> [[String: Any]] {
        try retime.run("log", "--json", "--limit", "1000").json["sessions"] as? [[String: Any]] ?? []
    }

    /// Every history file's bytes, by path.
    func historyFiles() -> [String: Data] {
        let history = retime.file("history")
        let paths = (FileManager.default.enumerator(atPath: history)?.allObjects as? [String]) ?? []
        return Dictionary(uniqueKeysWithValues: paths.map { ($0, FileManager.default.contents(atPath: history + "/" + $0) ?? Data()) })
    }

    /// A Watson frames file: (start, stop) in Unix seconds, project, id, tags.
    func watson(_ frames: [(Int, Int, String, String, [String])], name: String = "frames") throws -> String {
        let body = frames.map { start, stop, project, id, tags in
            "[\(start), \(stop), \"\(project)\", \"\(id)\", [\(tags.map { "\"\($0)\"" }.joined(separator: ", "))], \(stop)]"
        }
        let path = retime.dataDirectory + "-" + name
        try ("[" + body.joined(separator: ",\n") + "]").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func hex(_ number: Int) -> String { String(format: "%032x", number) }
    static var hourAgo: Int { Int(Date().timeIntervalSince1970) / 60 * 60 - 36_000 }

    @Test("undo of a track takes it out of history and says so; with nothing left, exit 1 and history.nothingToUndo")
    func undoTrack() throws {
        #expect(try retime.run("group", "create", "work").status == 0)
        let nothing = try retime.run("undo", "--json")
        #expect(nothing.status == 1 && nothing.errorCode == "history.nothingToUndo", "\(nothing.err)")
        #expect(try retime.run("undo").err.contains("nothing to undo"))
        let tracked = try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2), "--json")
        let id = try #require((tracked.json["session"] as? [String: Any])?["id"] as? String)
        let undone = try retime.run("undo")
        #expect(undone.status == 0, "\(undone.err)")
        #expect(undone.prose.hasPrefix("Undid track: \(id.prefix(8)) work ") && undone.prose.hasSuffix("is out of history."), "\(undone.out)")
        #expect(try sessions().isEmpty)
        let again = try retime.run("undo")
        #expect(again.status == 1 && again.err.contains("retime: error: nothing to undo"), "\(again.err)")
        // A mistyped --data-dir is not made by undo, nor called "nothing to undo".
        let typo = retime.dataDirectory + "-typo"
        let missing = try retime.run(["--data-dir", typo, "undo", "--json"], withDataDir: false)
        #expect(missing.status == 1 && missing.errorCode == "data.notFound", "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: typo))
    }

    @Test("undo of an edit puts back its tags, note and times; two undos in a row walk back two edits")
    func undoEdits() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2), "--tag", "a", "--note", "first").status == 0)
        let original = try #require(try sessions().first)
        #expect(try retime.run("edit", "@1", "--tag", "deep", "--untag", "a", "--note", "second").status == 0)
        let edited = try #require(try sessions().first)
        #expect(try retime.run("edit", "@1", "--from", Self.ago(2.5), "--to", Self.ago(1.5)).status == 0)

        let first = try retime.run("undo")
        #expect(first.status == 0 && first.prose.contains("its times are back as before"), "\(first.out)")
        let afterFirst = try #require(try sessions().first)
        #expect(afterFirst["startedAt"] as? String == edited["startedAt"] as? String
                && afterFirst["endedAt"] as? String == edited["endedAt"] as? String)
        #expect(afterFirst["tags"] as? [String] == ["deep"] && afterFirst["note"] as? String == "second")

        let second = try retime.run("undo")
        #expect(second.status == 0 && second.prose.contains("Undid edit of ") && second.prose.contains("its tags and note are back as before"),
                "\(second.out)")
        let back = try #require(try sessions().first)
        #expect(back["tags"] as? [String] == ["a"] && back["note"] as? String == "first")
        #expect(back["startedAt"] as? String == original["startedAt"] as? String && back["endedAt"] as? String == original["endedAt"] as? String)
        #expect(try sessions().count == 1)
    }

    @Test("undo of a delete brings the session back, every field as it was")
    func undoDelete() throws {
        try retime.run("group", "create", "work")
        try retime.run("track", "work", "--from", Self.ago(5), "--to", Self.ago(4), "--tag", "x", "--note", "keep me")
        let before = try retime.run("log", "--json").out
        #expect(try retime.run("delete", "@1").status == 0)
        #expect(try sessions().isEmpty)
        let undone = try retime.run("undo")
        #expect(undone.status == 0 && undone.prose.hasPrefix("Undid delete: ") && undone.prose.hasSuffix("is back in history."), "\(undone.out)")
        #expect(try retime.run("log", "--json").out == before)
    }

    @Test("undo of an import run removes every session it added and restores every one it updated; the run before stays")
    func undoImport() throws {
        let base = Self.hourAgo
        let first = try watson([(base, base + 1_800, "deep", Self.hex(1), []), (base + 3_600, base + 5_400, "deep", Self.hex(2), [])])
        #expect(try retime.run("import", "--from", "watson", first).status == 0)
        let afterFirst = try retime.run("log", "--json").out
        // Frame 1 retagged in Watson since, frame 3 new.
        let second = try watson([(base, base + 1_800, "deep", Self.hex(1), ["extra"]), (base + 3_600, base + 5_400, "deep", Self.hex(2), []),
                                 (base + 7_200, base + 9_000, "reading", Self.hex(3), [])], name: "frames2")
        let imported = try retime.run("import", "--from", "watson", second, "--json")
        #expect(imported.json["imported"] as? Int == 1 && imported.json["updated"] as? Int == 1, "\(imported.out)")
        #expect(try sessions().count == 3)

        let undone = try retime.run("undo")
        #expect(undone.status == 0, "\(undone.err)")
        #expect(undone.prose.hasPrefix("Undid import from watson of ")
                && undone.prose.hasSuffix(": 1 session it added is removed, 1 it updated is back as before."), "\(undone.out)")
        #expect(try retime.run("log", "--json").out == afterFirst)

        let again = try retime.run("undo")
        #expect(again.prose.contains(": 2 sessions it added are removed."), "\(again.out)")
        #expect(try sessions().isEmpty)

        // Importing again (say, with a better group rule) brings them back, and says so.
        let back = try retime.run("import", "--from", "watson", second)
        #expect(back.status == 0 && back.prose.contains("Imported 3 of 3 entries from watson (3 of them deleted here since an earlier import, brought back)"),
                "\(back.out)")
        #expect((undone.out + back.out).split(separator: "\n").allSatisfy { $0.count <= 80 }, "wrapped to 80 columns: \(undone.out)\(back.out)")
        #expect(try sessions().count == 3)
        #expect(try retime.run("undo").prose.contains(": 3 sessions it added are removed."))
        #expect(try sessions().isEmpty, "and undone again")
    }

    @Test("--dry-run says what would be undone and changes no byte; --json gives the change and each session before and after")
    func dryRunAndJSON() throws {
        try retime.run("group", "create", "work")
        try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2))
        #expect(try retime.run("edit", "@1", "--tag", "deep").status == 0)
        let files = historyFiles()
        let told = try retime.run("undo", "--dry-run")
        #expect(told.status == 0 && told.prose.hasPrefix("Would undo edit of ") && told.prose.contains("its tags would be back as before"),
                "\(told.out)")
        let toldJSON = try retime.run("undo", "--dry-run", "--json")
        #expect(toldJSON.json["dryRun"] as? Bool == true)
        #expect(historyFiles() == files, "a dry run writes nothing")

        let done = try retime.run("undo", "--json")
        #expect(done.status == 0)
        let json = done.json
        #expect(json["schema"] as? String == "retime/1" && json["dryRun"] as? Bool == false)
        let change = try #require(json["change"] as? [String: Any])
        #expect(change["kind"] as? String == "edit" && change["at"] is String)
        #expect(change["id"] as? String == (toldJSON.json["change"] as? [String: Any])?["id"] as? String, "the dry run named this change")
        let restored = try #require(json["restored"] as? [[String: Any]])
        #expect(restored.count == 1 && (json["changedSince"] as? [Any])?.isEmpty == true)
        let before = try #require(restored[0]["before"] as? [String: Any]), after = try #require(restored[0]["after"] as? [String: Any])
        #expect(before["tags"] as? [String] == [] && after["tags"] as? [String] == ["deep"])
        #expect(before["id"] as? String == restored[0]["id"] as? String && before["group"] as? String == "work", "\(before)")
        #expect(try sessions().first?["tags"] as? [String] == [])
    }

    @Test("undo leaves the session in progress alone, strict or not: it is still running, its block still recorded")
    func leavesRunningSession() throws {
        try retime.run("group", "create", "work", "--block", "example.com")
        try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2))
        #expect(try retime.run("start", "work", "--for", "1h", "--strict").status == 0)
        let status = try retime.run("status", "--json").out
        #expect(try retime.run("undo").status == 0)
        let nothing = try retime.run("undo")
        #expect(nothing.status == 1, "start is no history change: \(nothing.out)")
        let after = try retime.run("status", "--json")
        #expect(after.json["active"] as? Bool == true)
        let session = { (text: String) in
            ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])?["session"] as? [String: Any]
        }
        #expect(session(after.out)?["id"] as? String == session(status)?["id"] as? String)
        #expect(try retime.run("stop").status == 3, "still strict")
    }

    @Test("each device undoes only its own changes; a session changed since on another device is left as that device made it")
    func twoDevices() throws {
        let laptop = retime, desktop = RetimeProcess()
        for device in [laptop, desktop] { #expect(try device.run("group", "create", "work").status == 0) }
        #expect(try laptop.run("track", "work", "--from", Self.ago(4), "--to", Self.ago(3)).status == 0)
        #expect(try laptop.run("edit", "@1", "--note", "laptop").status == 0)
        let laptopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: laptop.file("history")).first)
        // A sync engine copies the laptop's folder over, and later the desktop's back.
        try FileManager.default.copyItem(atPath: laptop.file("history/\(laptopFolder)"), toPath: desktop.file("history/\(laptopFolder)"))
        #expect(try desktop.run("edit", "@1", "--note", "desktop").status == 0)
        let desktopFolder = try #require(try FileManager.default.contentsOfDirectory(atPath: desktop.file("history")).first { $0 != laptopFolder })
        try FileManager.default.copyItem(atPath: desktop.file("history/\(desktopFolder)"), toPath: laptop.file("history/\(desktopFolder)"))
        func note(_ device: RetimeProcess) throws -> String? {
            (try device.run("log", "--json").json["sessions"] as? [[String: Any]])?.first?["note"] as? String
        }
        #expect(try note(laptop) == "desktop")

        let told = try laptop.run("undo", "--dry-run")
        #expect(told.prose.hasPrefix("Would pass over edit of ")
                && told.prose.hasSuffix("it was changed since on another device and would be left as it is."), "\(told.out)")
        let undone = try laptop.run("undo", "--json")
        #expect(undone.status == 0 && (undone.json["restored"] as? [Any])?.isEmpty == true, "\(undone.out)")
        #expect((undone.json["changedSince"] as? [Any])?.count == 1)
        // The laptop's track next: its session too has the desktop's edit since.
        #expect(try laptop.run("undo").prose.hasPrefix("Passed over track of "))
        #expect(try note(laptop) == "desktop")
        let human = try desktop.run("undo", "--dry-run")
        #expect(human.prose.hasPrefix("Would undo edit of ") && human.prose.contains("its note would be back as before"), "\(human.out)")
        #expect(try desktop.run("undo").status == 0)
        #expect(try note(desktop) == "laptop", "the desktop undid its own edit")
        let nothing = try desktop.run("undo")
        #expect(nothing.status == 1, "the laptop's track and edit are not the desktop's to undo: \(nothing.out)")
    }

    /// Starts every command at once, then waits for them all.
    func together(_ commands: [[String]]) throws -> [RetimeProcess.Outcome] {
        let running = try commands.map { try retime.start($0) }
        return try running.map { try retime.finish($0) }
    }

    @Test("20 edits at once all hold; then 20 undos at once each undo a different one of them, none twice")
    func concurrent() throws {
        try retime.run("group", "create", "work")
        try retime.run("track", "work", "--from", Self.ago(3), "--to", Self.ago(2))
        let edits = try together((0..<20).map { ["edit", "@1", "--tag", "t\($0)"] })
        #expect(edits.allSatisfy { $0.status == 0 }, "\(edits.filter { $0.status != 0 }.map(\.err))")
        #expect(Set(try sessions().first?["tags"] as? [String] ?? []) == Set((0..<20).map { "t\($0)" }), "no edit lost")

        let undos = try together(Array(repeating: ["undo", "--json"], count: 20))
        #expect(undos.allSatisfy { $0.status == 0 }, "\(undos.filter { $0.status != 0 }.map(\.err))")
        let changes = undos.compactMap { ($0.json["change"] as? [String: Any])?["id"] as? String }
        #expect(Set(changes).count == 20, "each undid its own change")
        #expect(undos.allSatisfy { ($0.json["change"] as? [String: Any])?["kind"] as? String == "edit" })
        #expect(try sessions().first?["tags"] as? [String] == [], "every edit undone, nothing more")
        #expect(try retime.run("undo").prose.hasPrefix("Undid track: "))
        #expect(try retime.run("undo").status == 1)
    }

    @Test("100 SIGKILLs at random instants of an undo of an import: history is as before or as after it, never between")
    func killsDuringUndo() throws {
        let base = Self.hourAgo - 4 * 86_400
        // How long a whole undo takes here (debug or release, loaded or not).
        let first = try watson((0..<3).map { (base + $0 * 600, base + $0 * 600 + 300, "p", Self.hex(900 + $0), []) })
        try retime.run("import", "--from", "watson", first)
        let began = Date()
        #expect(try retime.run("undo").status == 0)
        // The instants are drawn below a bound that follows the undo's
        // write: a kill that came after it lowers the bound to that kill's
        // delay, one that came before raises it a little. So the kills land
        // on both sides however slow the parallel suite makes an undo (one
        // measured alone can be a fraction of one under load: CI's full run
        // once saw all 100 before it).
        var bound = UInt32(Date().timeIntervalSince(began) * 1_000_000)
        let most = max(bound * 20, 2_000_000)
        var generator = SystemRandomNumberGenerator()
        var outcomes: [String: Int] = [:]
        var kept: Set<String> = []
        for round in 0..<100 {
            // Three new frames and one changed: the import adds three and updates one.
            let start = base + 3_600 + round * 1_800
            let frames = (0..<3).map { (start + $0 * 300, start + $0 * 300 + 200, "p", Self.hex(1_000 + round * 3 + $0), [String]()) }
            let path = try watson(frames, name: "round")
            #expect(try retime.run("import", "--from", "watson", path).status == 0)
            let imported = Set(frames.map { $0.3 })
            let ids = Set(try sessions().compactMap { ($0["id"] as? String)?.replacingOccurrences(of: "-", with: "") })
            #expect(ids == kept.union(imported), "round \(round): the import took")

            let undo = try retime.start(["undo"])
            let delay = UInt32.random(in: 0...bound, using: &generator)
            usleep(delay)
            kill(undo.process.processIdentifier, SIGKILL)
            _ = try retime.finish(undo)

            let now = Set(try sessions().compactMap { ($0["id"] as? String)?.replacingOccurrences(of: "-", with: "") })
            if now == kept.union(imported) {
                outcomes["before", default: 0] += 1
                kept.formUnion(imported)
                bound = min(most, bound + bound / 8 + 100)
            } else if now == kept {
                outcomes["undone", default: 0] += 1
                bound = delay
            } else {
                Issue.record("round \(round): neither before nor after the undo: \(now.subtracting(kept).count) of 3 left")
            }
        }
        // The kills did land on both sides of the write (else this proved little).
        #expect(outcomes["before", default: 0] > 0 && outcomes["undone", default: 0] > 0, "\(outcomes)")
        // Every change not undone is still undoable, one after another, to empty.
        var rounds = 0
        while try retime.run("undo").status == 0 { rounds += 1 }
        #expect(try sessions().isEmpty, "after \(rounds) more undos")
    }
}
