import Foundation
import Testing

/// Real processes editing the same records at once, as a user's scripts, a
/// second terminal and the daemon may: every acknowledged edit holds, and no
/// check is undone by a write that slipped in after it (semantics.md,
/// "Every acknowledged edit holds").
@Suite("Concurrent edits through the binary")
struct ConcurrentEditTests {
    let retime = RetimeProcess()

    /// Starts every command at once, then waits for them all.
    func together(_ commands: [[String]], input: String? = nil) throws -> [RetimeProcess.Outcome] {
        let running = try commands.map { try retime.start($0, input: input) }
        return try running.map { try retime.finish($0) }
    }

    func group(_ name: String) throws -> [String: Any]? {
        try retime.run("group", "show", name, "--json").json["group"] as? [String: Any]
    }

    @Test("20 processes x 10 targets added to one group: all 200 acknowledged, all 200 kept; then all removed")
    func blockAndUnblock() throws {
        try retime.run("group", "create", "g")
        let commands = (0..<20).map { process in
            ["group", "block", "g"] + (0..<10).map { "d\(process)-\($0).example.com" }
        }
        // Ten targets a process, one command each: 200 edits, 20 at a time.
        let outcomes = try (0..<10).flatMap { edit in
            try together(commands.map { Array($0.prefix(3)) + [$0[3 + edit]] })
        }
        #expect(outcomes.allSatisfy { $0.status == 0 }, "\(outcomes.filter { $0.status != 0 }.map(\.err))")
        #expect((try group("g")?["targets"] as? [String])?.count == 200)

        let removals = try (0..<10).flatMap { edit in
            try together(commands.map { ["group", "unblock", "g", $0[3 + edit]] })
        }
        #expect(removals.allSatisfy { $0.status == 0 })
        #expect((try group("g")?["targets"] as? [String])?.isEmpty == true)
    }

    @Test("doctor --repair beside 400 live writes: every write holds, no temp file of a live writer is removed")
    func repairBesideWrites() throws {
        try retime.run("group", "create", "g")
        var failures: [String] = []
        for round in 0..<20 {
            let writes = (0..<20).map { ["group", "block", "g", "r\(round)-\($0).example.com"] }
            let repairs = Array(repeating: ["doctor", "--repair"], count: 3)
            let outcomes = try together(writes + repairs)
            failures += outcomes.prefix(20).filter { $0.status != 0 }.map(\.err)
        }
        #expect(failures.isEmpty, "\(failures.count) writes failed: \(failures.prefix(3))")
        #expect((try group("g")?["targets"] as? [String])?.count == 400)
    }

    @Test("the same import run four times at once: together they report each session imported once")
    func concurrentImports() throws {
        let frames = (0..<300).map { index in
            let start = 1_760_000_000 + index * 3_600
            return "[\(start), \(start + 1_500), \"project \(index % 30)\", \"\(String(format: "%032x", index))\", [], \(start + 1_500)]"
        }
        let path = retime.dataDirectory + "-frames"
        try ("[" + frames.joined(separator: ",") + "]").write(toFile: path, atomically: true, encoding: .utf8)
        let outcomes = try together(Array(repeating: ["import", "--from", "watson", path], count: 4))
        #expect(outcomes.allSatisfy { $0.status == 0 })
        let imported = outcomes.compactMap { outcome in
            outcome.out.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        #expect(imported.reduce(0, +) == 300, "each run said it imported \(imported)")
        #expect((try retime.run("log", "--json", "--limit", "1000").json["sessions"] as? [[String: Any]])?.count == 300)
        #expect((try retime.run("group", "list", "--json").json["groups"] as? [[String: Any]])?.count == 30)
    }

    @Test("20 renames of one group at once: exactly the one acknowledged holds")
    func renames() throws {
        try retime.run("group", "create", "g")
        let outcomes = try together((0..<20).map { ["group", "rename", "g", "name\($0)", "--json"] })
        let acknowledged = outcomes.indices.filter { outcomes[$0].status == 0 }
        #expect(acknowledged.count == 1)
        let names = try retime.run("group", "list", "--json").json["groups"] as? [[String: Any]] ?? []
        #expect(names.map { $0["name"] as? String } == acknowledged.map { "name\($0)" })
    }

    @Test("start against group delete: a session never runs on a deleted group", arguments: 0..<8)
    func startAgainstDelete(round: Int) throws {
        try retime.run("group", "create", "g\(round)")
        let outcomes = try together([["start", "g\(round)"], ["group", "delete", "g\(round)"]])
        let status = try retime.run("status", "--json").json
        if (status["active"] as? Bool) == true {
            #expect(outcomes[1].status != 0, "the group was deleted under a session that started")
            #expect(try group("g\(round)") != nil)
        } else {
            #expect(outcomes[1].status == 0 && outcomes[0].status != 0)
        }
    }

    @Test("schedule add against group delete: no schedule points at a deleted group", arguments: 0..<8)
    func scheduleAgainstDelete(round: Int) throws {
        try retime.run("group", "create", "g")
        let outcomes = try together([["schedule", "add", "s", "--group", "g", "--from", "09:00", "--to", "10:00"],
                                     ["group", "delete", "g"]])
        let schedules = try retime.run("schedule", "list", "--json").json["schedules"] as? [[String: Any]] ?? []
        #expect(outcomes.filter { $0.status == 0 }.count == 1)
        for schedule in schedules { #expect(schedule["group"] as? String == "g", "a schedule on a deleted group") }
        #expect(schedules.isEmpty == (outcomes[0].status != 0))
    }

    @Test("strict start against group unblock: the strict session keeps what its group held", arguments: 0..<8)
    func strictStartAgainstUnblock(round: Int) throws {
        try retime.run("group", "create", "g", "--block", "a.example.com", "--block", "b.example.com")
        let outcomes = try together([["start", "g", "--for", "10m", "--strict"], ["group", "unblock", "g", "b.example.com"]])
        #expect(outcomes[0].status == 0)
        let targets = try group("g")?["targets"] as? [String] ?? []
        // Either the unblock came first (and the session blocks what is left)
        // or it was refused as a strict session's weakening.
        #expect(outcomes[1].status == 0 ? targets == ["a.example.com"] : (outcomes[1].status == 3 && targets.count == 2),
                "unblock exited \(outcomes[1].status), group holds \(targets)")
    }

    @Test("changes of the passcode at once: each acknowledged one holds")
    func passcodeChanges() throws {
        #expect(try retime.run(["auth", "set-passcode", "--stdin"], input: "old-passcode\n").status == 0)
        // Four, so that the ones refused stay under the lockout's free attempts.
        let running = try (0..<4).map { try retime.start(["auth", "change-passcode", "--stdin"], input: "old-passcode\nnew-passcode-\($0)\n") }
        let outcomes = try running.map { try retime.finish($0) }
        let acknowledged = outcomes.indices.filter { outcomes[$0].status == 0 }
        #expect(acknowledged.count == 1, "\(outcomes.map(\.err))")
        let now = try #require(acknowledged.first)
        #expect(try retime.run(["auth", "remove-passcode", "--stdin"], input: "new-passcode-\(now)\n").status == 0,
                "the acknowledged passcode is the one in force")
    }
}
