import Foundation
import Testing

/// Two writes spare their directory's fsync because the next command
/// rebuilds them when a crash undoes them (docs/storage.md, "repairable"):
/// the last step of a session's ending and the `none` shield's record. A
/// crash that undoes a rename brings back the file's previous version;
/// these tests put that version back by hand and check the next command.
@Suite("Writes a crash may undo are repaired by the next command")
struct RepairableWriteTests {
    let retime = RetimeProcess()

    /// A file of this machine's store (`devices/<id>/store/`).
    private func file(_ name: String) -> String { ((try? retime.deviceFile("store")) ?? retime.file("store")) + "/" + name }

    /// The previous version of a store file, as a lost rename leaves it;
    /// of a change log, as a lost append leaves it (its last line gone).
    private func undo(_ suite: String) throws {
        if suite == "session" {
            let log = try retime.changeLog(suite)
            var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            lines.removeLast(2)   // the last line and the empty text after its newline
            try (lines.joined(separator: "\n") + "\n").write(toFile: log, atomically: false, encoding: .utf8)
            return
        }
        let path = file(suite + ".json")
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: file("backups/\(suite).json.1"), toPath: path)
    }

    private func blockRecord() throws -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: file("shield.json")) else { return nil }
        let values = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["values"] as? [String: Any]
        return values?["block"] as? [String: Any]
    }

    private func doctorBlocks() throws -> String? {
        let checks = try retime.run("doctor", "--json").json["checks"] as? [[String: String]]
        return checks?.first { $0["name"] == "blocks" }?["status"]
    }

    @Test("a stop whose emptied slot and lowered record are both undone: the next command ends the session once")
    func stopUndone() throws {
        try retime.run("group", "create", "g", "--block", "a.example.com")
        let id = try #require((try retime.run("start", "g", "--json").json["session"] as? [String: Any])?["id"] as? String)
        try retime.run("stop")
        try undo("session")   // back to the ended session, still in the slot
        try undo("shield")    // back to the block raised for it
        #expect(try blockRecord()?["session"] as? String == id)

        #expect(try retime.run("status", "--json").json["active"] as? Bool == false)
        #expect(try blockRecord() == nil)
        let sessions = try #require(try retime.run("log", "--json").json["sessions"] as? [[String: Any]])
        #expect(sessions.map { $0["id"] as? String } == [id])
        #expect(sessions.first?["outcome"] as? String == "completed", "an open-ended session ends as planned at stop")
        #expect(try doctorBlocks() == "ok")
    }

    @Test("a lowered record undone after the slot was emptied blocks nothing, and the next start replaces it")
    func loweringUndone() throws {
        try retime.run("group", "create", "g", "--block", "a.example.com")
        try retime.run("start", "g")
        try retime.run("stop")
        try undo("shield")
        #expect(try blockRecord() != nil)
        #expect(try retime.run("status", "--json").json["active"] as? Bool == false)
        let next = try #require((try retime.run("start", "g", "--json").json["session"] as? [String: Any])?["id"] as? String)
        #expect(try blockRecord()?["session"] as? String == next)
        try retime.run("stop")
        #expect(try blockRecord() == nil)
        #expect(try doctorBlocks() == "ok")
    }

    @Test("a start whose shield record is undone: the next command raises the running session's block again")
    func raiseUndone() throws {
        try retime.run("group", "create", "g", "--block", "a.example.com")
        let id = try #require((try retime.run("start", "g", "--json").json["session"] as? [String: Any])?["id"] as? String)
        try FileManager.default.removeItem(atPath: file("shield.json"))   // the first raise created it
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        #expect(try blockRecord()?["session"] as? String == id)
        #expect((try blockRecord()?["targets"] as? [String]) == ["a.example.com"])
        #expect(try doctorBlocks() == "ok")
    }
}
