import Foundation
import Testing

/// The shields as a user meets them: what start says it blocks, the hosts
/// file written and restored, and a block that cannot be lifted.
@Suite("retime shields end to end")
struct ShieldEndToEndTests {
    let retime = RetimeProcess()

    @Test("with the default 'none' shield, start does not claim to block what it only records")
    func noneShieldSaysSo() throws {
        try retime.run("group", "create", "work", "--block", "example.com")
        #expect(try retime.run("start", "work").prose
            == "Started an open-ended session on work. The 'none' shield only records its 1 target: nothing is blocked (to block, install the system service: 'sudo retime system install').")
        #expect(try retime.run("status").prose.contains("· shield: none (records only, blocks nothing) daemon:"))
        #expect(try retime.run("pause").out.hasPrefix("Paused: the 'none' shield had blocked nothing"))
        #expect(try retime.run("resume").out.hasPrefix("Resumed: the 'none' shield records the block again; nothing is blocked"))
        let doctor = try retime.run("doctor", "--json").json["checks"] as? [[String: String]] ?? []
        #expect(doctor.first { $0["name"] == "blocks" }?["detail"]?.contains("the 'none' shield blocks nothing") == true)
    }

    @Test("targets added to the running session's group are blocked at once")
    func blockDuringSession() throws {
        try retime.run("group", "create", "work", "--block", "a.com")
        try retime.run("start", "work")
        try retime.run("group", "block", "work", "b.com")
        let shield = try String(contentsOfFile: retime.deviceFile("store/shield.json"), encoding: .utf8)
        #expect(shield.contains("a.com") && shield.contains("b.com"))
    }

    /// Switches to the hosts shield on a hosts file of our own, and makes a
    /// group `work` blocking example.com. Returns the file and its content.
    private func useHostsShield() throws -> (path: String, original: String) {
        let hosts = retime.dataDirectory + "-hosts"
        let original = "127.0.0.1 localhost\n"
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(original.utf8)))
        try retime.run("config", "set", "shield.hostsFile", hosts)
        #expect(try retime.run("config", "set", "shield", "hosts").status == 0)
        try retime.run("group", "create", "work", "--block", "example.com")
        return (hosts, original)
    }

    @Test("cancel discards the running session: its block is lifted and history keeps nothing; a strict one refuses (issue 29)")
    func cancel() throws {
        let (hosts, original) = try useHostsShield()
        #expect(try retime.run("start", "work", "--for", "10m").status == 0)
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) != original)
        let cancel = try retime.run("cancel")
        #expect(cancel.status == 0 && cancel.out.contains("Cancelled the session on work"), "\(cancel.out) \(cancel.err)")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original, "its block is lifted")
        #expect(try (retime.run("log", "--json").json["sessions"] as? [Any])?.isEmpty == true, "history keeps nothing")
        #expect(try retime.run("cancel").status == 1, "nothing to cancel")
        #expect(try retime.run("start", "work", "--for", "10m", "--strict").status == 0)
        let strict = try retime.run("cancel", "--json")
        #expect(strict.status == 3 && strict.errorCode == "session.strict", "\(strict.err)")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) != original, "the strict block stays")
        // A script starts a session on a group it names, created if need be.
        #expect(try retime.run("start", "reading", "--for", "10m").status == 1, "no group yet: a script gets the error")
    }

    @Test("start --create makes the group for a script, without asking (issue 29)")
    func startCreates() throws {
        let start = try retime.run("start", "reading", "--for", "10m", "--create")
        #expect(start.status == 0 && start.prose.contains("Started a 10m session on reading"), "\(start.err)")
        #expect(try retime.run("group", "show", "reading").status == 0)
        #expect(try retime.run("cancel").status == 0)
        #expect(try retime.run("start", "reading", "--for", "10m", "--create").status == 0, "an existing group is used as it is")
    }

    @Test("a session is lowered through the shield that raised it, whatever the configuration says by then")
    func loweredThroughItsOwnShield() throws {
        let (hosts, original) = try useHostsShield()
        try retime.run("start", "work")
        try retime.run("config", "set", "shield", "none")            // changed while the hosts block is up
        #expect(try retime.run("status").out.contains("shield: hosts"))
        #expect(try retime.run("stop").status == 0)
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original, "the hosts block came down with its session")
        try retime.run("start", "work")                               // and the next one uses the new setting
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original)
        #expect(try retime.run("status").out.contains("shield: none"))
    }

    @Test("with shield hosts, a session's targets go into the hosts file and come out on stop")
    func hostsShield() throws {
        let (hosts, original) = try useHostsShield()
        #expect(try retime.run("start", "work").prose == "Started an open-ended session on work. Blocking 1 site, each with its www. (not its other subdomains).")
        #expect(try retime.run("status").out.contains("· shield: hosts\n"))
        #expect(try String(contentsOfFile: hosts, encoding: .utf8).contains("0.0.0.0 www.example.com"))
        try retime.run("stop")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original)
    }

    @Test("a block that cannot be lifted at stop is reported, the session is kept in history, and a later command lifts it")
    func stuckBlock() throws {
        let (hosts, original) = try useHostsShield()
        try retime.run("start", "work")
        let blocked = try String(contentsOfFile: hosts, encoding: .utf8)
        // A hosts file that cannot be rewritten: a directory where it was.
        try FileManager.default.removeItem(atPath: hosts)
        try FileManager.default.createDirectory(atPath: hosts + "/in-the-way", withIntermediateDirectories: true)
        let stop = try retime.run("stop", "--json")
        #expect(stop.status == 4 && stop.errorCode == "shield.notLifted", "\(stop.err)")
        #expect(stop.err.contains("the session ended and is in history, but its block could not be lifted"))
        #expect(stop.err.contains("hint: retime tries again with every command"))
        #expect((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first?["outcome"] as? String == "completed", "open-ended: stop completes it")
        let status = try retime.run("status", "--json")
        #expect(status.status == 0 && status.json["active"] as? Bool == false)
        #expect(status.err.contains("could not be lifted"), "\(status.err)")
        #expect(try retime.run("start", "work").status == 4)   // not "already active"
        let doctor = try retime.run("doctor")
        #expect(doctor.status == 4 && doctor.prose.contains("error  blocks: cannot check or lift the block"), "\(doctor.out)")
        try FileManager.default.removeItem(atPath: hosts)
        #expect(FileManager.default.createFile(atPath: hosts, contents: Data(blocked.utf8)))
        let retried = try retime.run("status")
        #expect(retried.status == 0 && retried.err.isEmpty, "\(retried.err)")
        #expect(try String(contentsOfFile: hosts, encoding: .utf8) == original)
        #expect((try retime.run("log", "--json").json["sessions"] as? [Any])?.count == 1)
    }
}
