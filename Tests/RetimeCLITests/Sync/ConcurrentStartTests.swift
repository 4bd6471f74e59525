import Foundation
import Testing

/// Two devices sharing a data folder, each starting a session before the
/// sync tool brought it the other's: one rule decides which session runs,
/// on both devices alike, and the other ends in history, once
/// (docs/storage.md, "Two sessions started at once").
@Suite("Sessions started on two devices at once")
struct ConcurrentStartTests {
    let a = RetimeProcess(), b = RetimeProcess()

    /// What a sync tool does between two copies of the folder: every file
    /// of the other device's folders (its change logs, its history) copied
    /// over; a device's own files are never written by the other.
    func sync(_ from: RetimeProcess, to: RetimeProcess) throws {
        let files = FileManager.default
        for top in ["devices", "history"] {
            for device in (try? files.contentsOfDirectory(atPath: from.file(top))) ?? [] {
                guard !files.fileExists(atPath: to.file("\(top)/\(device)/.mine")) else { continue }
                for item in files.subpaths(atPath: from.file("\(top)/\(device)")) ?? [] {
                    let source = from.file("\(top)/\(device)/\(item)"), target = to.file("\(top)/\(device)/\(item)")
                    var isDirectory: ObjCBool = false
                    guard files.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue, !item.hasSuffix(".lock"), item != ".mine" else { continue }
                    try files.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try? files.removeItem(atPath: target)
                    try files.copyItem(atPath: source, toPath: target)
                }
            }
        }
    }

    /// Both devices with the group `focus` made on A, and each device's own
    /// folders marked so the copy leaves them alone.
    func setUp() throws {
        try a.run("group", "create", "focus", "--block", "example.com")
        try a.run("config", "set", "shield", "none")
        try b.run("group", "list")
        try sync(a, to: b)
        try b.run("config", "set", "shield", "none")
        for device in [a, b] {
            for top in ["devices", "history"] {
                for id in (try? FileManager.default.contentsOfDirectory(atPath: device.file(top))) ?? [] where device.owns(id) {
                    FileManager.default.createFile(atPath: device.file("\(top)/\(id)/.mine"), contents: nil)
                }
            }
        }
    }

    /// Each device's folders copied to the other: A's to B, then B's to A.
    func syncBothWays() throws {
        try sync(a, to: b)
        try sync(b, to: a)
    }

    /// Both devices' `status` names `expected` (a session's JSON) as running.
    func expectBothRun(_ expected: [String: Any]) throws {
        for device in [a, b] {
            let status = try device.run("status", "--json").json
            #expect((status["session"] as? [String: Any])?["id"] as? String == expected["id"] as? String, "\(status)")
        }
    }

    func session(_ outcome: RetimeProcess.Outcome) throws -> [String: Any] {
        try #require(outcome.json["session"] as? [String: Any], "\(outcome.out)\(outcome.err)")
    }

    func logged(_ device: RetimeProcess) throws -> [[String: Any]] {
        try #require(try device.run("log", "--json").json["sessions"] as? [[String: Any]])
    }

    @Test("neither strict: the later start runs on both devices, the other ends in history once, at the instant the later began")
    func laterStartHolds() throws {
        try setUp()
        let first = try session(try a.run("start", "focus", "--for", "30m", "--json"))
        let second = try session(try b.run("start", "focus", "--for", "20m", "--json"))
        try syncBothWays()
        try expectBothRun(second)
        try syncBothWays()
        for device in [a, b] {
            let ended = try logged(device).filter { $0["id"] as? String == first["id"] as? String }
            #expect(ended.count == 1, "\(ended)")
            #expect(ended.first?["outcome"] as? String == "stopped")
            #expect(ended.first?["endedAt"] as? String == second["startedAt"] as? String, "\(ended)")
            #expect(try device.run("status", "--json").json["active"] as? Bool == true)
        }
        // B's daemon-less shield holds the running session's block; A's record
        // of its own ended session is gone.
        #expect(try b.run("stop").status == 0)
        try sync(b, to: a)
        #expect(try a.run("status", "--json").json["active"] as? Bool == false)
        #expect(try logged(a).count == 2)
    }

    @Test("a strict session is never ended by another device's start: it takes the slot back, the other ends")
    func strictHolds() throws {
        try setUp()
        let strict = try session(try a.run("start", "focus", "--for", "30m", "--strict", "--json"))
        let other = try session(try b.run("start", "focus", "--for", "20m", "--json"))
        try sync(a, to: b)
        try sync(b, to: a)
        for device in [b, a] {
            let status = try device.run("status", "--json").json
            #expect((status["session"] as? [String: Any])?["id"] as? String == strict["id"] as? String, "\(status)")
        }
        try sync(b, to: a)
        #expect(try a.run("stop").status != 0, "still strict")
        #expect(try b.run("stop").status != 0, "a strict session started on another device cannot be stopped here early either")
        let ended = try logged(a).filter { $0["id"] as? String == other["id"] as? String }
        #expect(ended.count == 1 && ended.first?["outcome"] as? String == "stopped", "\(ended)")
    }

    @Test("a session started on another device is blocked here through this machine's own shield, and lowered through it")
    func blockedThroughThisMachinesShield() throws {
        try setUp()
        let hosts = b.dataDirectory + "-hosts"
        try "127.0.0.1 localhost\n".write(toFile: hosts, atomically: true, encoding: .utf8)
        try b.run("config", "set", "shield.hostsFile", hosts)
        try b.run("config", "set", "shield", "hosts")
        try session(try a.run("start", "focus", "--for", "30m", "--json"))   // through A's `none` shield
        try sync(a, to: b)
        #expect(try b.run("status", "--json").json["active"] as? Bool == true)
        #expect(try String(contentsOfFile: hosts, encoding: .utf8).contains("example.com"), "B blocks it in B's hosts file")
        #expect(try b.run("stop").status == 0)
        #expect(!(try String(contentsOfFile: hosts, encoding: .utf8).contains("example.com")), "and lifts it there")
    }

    @Test("a session whose replacer has already ended runs again")
    func runsAgain() throws {
        try setUp()
        let first = try session(try a.run("start", "focus", "--for", "30m", "--json"))
        try b.run("start", "focus", "--for", "20m")
        try b.run("stop")
        try sync(b, to: a)
        let status = try a.run("status", "--json").json
        #expect((status["session"] as? [String: Any])?["id"] as? String == first["id"] as? String, "\(status)")
        #expect(try logged(a).count == 1, "B's own session, stopped")
    }

    /// B pauses (resumes, skips to the next phase of) a session A has
    /// already stopped or cancelled, before the copy brought B the end: B's
    /// edit is written later than A's, and the slot, merged by the clock,
    /// ran the session again on both devices.
    @Test("an edit of a session made on a device that had not seen it stopped or cancelled does not bring it back",
          arguments: ["stop", "cancel"], ["pause", "resume", "next"])
    func endingIsFinal(ending: String, edit: String) throws {
        try setUp()
        let length = edit == "next" ? ["--cycle", "10m/5m"] : ["--for", "30m"]   // `next` is a cycle's; a pause, a plain session's
        let ended = try session(try a.run(["start", "focus"] + length + ["--json"]))
        if edit == "resume" { try a.run("pause") }
        try sync(a, to: b)
        #expect(try a.run(ending).status == 0)
        let edited = try b.run(edit)
        #expect(edited.status == 0, "\(edited.out)\(edited.err)")
        try sync(b, to: a)
        try sync(a, to: b)
        for device in [a, b] {
            #expect(try device.run("status", "--json").json["active"] as? Bool == false)
            let logged = try logged(device).filter { $0["id"] as? String == ended["id"] as? String }
            if ending == "stop" {
                #expect(logged.count == 1 && logged.first?["outcome"] as? String == "stopped", "\(logged)")
            } else {
                #expect(logged.isEmpty, "a cancelled session is not history")
            }
        }
        // And each device starts the next session as usual.
        #expect(try a.run("start", "focus", "--for", "10m").status == 0)
        #expect(try a.run("stop").status == 0)
        try sync(a, to: b)
        #expect(try b.run("start", "focus", "--for", "10m").status == 0)
    }

    /// A 30-minute session started on A and seen by B; stopped on A, which
    /// then runs `sessions` more; paused on B all the same; the folders then
    /// copied both ways. Returns the stopped session.
    func pausedOnBAfterAStopped(thenRan sessions: Int) throws -> [String: Any] {
        try setUp()
        let stopped = try session(try a.run("start", "focus", "--for", "30m", "--json"))
        try sync(a, to: b)
        #expect(try a.run("stop").status == 0)
        for _ in 0..<sessions {
            #expect(try a.run("start", "focus", "--for", "25m").status == 0)
            #expect(try a.run("stop").status == 0)
        }
        #expect(try b.run("pause").status == 0)
        try syncBothWays()
        return stopped
    }

    /// The stopping device's log is compacted at each start; it keeps its
    /// last two removals, so a late edit of a session stopped two sessions
    /// ago still meets its stop (it used to keep the last ending only, and
    /// the second start dropped this one's).
    @Test("an unseen edit of a session stopped two sessions ago does not bring it back")
    func removalOutlivesLaterSessions() throws {
        let stopped = try pausedOnBAfterAStopped(thenRan: 2)
        for device in [a, b] {
            #expect(try device.run("status", "--json").json["active"] as? Bool == false)
            #expect(try logged(device).filter { $0["id"] as? String == stopped["id"] as? String }.count == 1)
        }
    }

    /// Past the last removals a log keeps, a late edit brings the stopped
    /// session back; past its planned end it ends at once, and history
    /// keeps the ending it had (it used to record it again, as completed).
    @Test("an unseen edit of a session stopped three sessions ago, met past its planned end, leaves its history as it was",
          .enabled(if: AuthEndToEndTests.hasFaketime, "needs faketime and a dynamically linked binary"))
    func lateEditPastTheEndKeepsHistory() throws {
        let stopped = try pausedOnBAfterAStopped(thenRan: 3)
        var later = b
        later.launcher = ["/usr/bin/faketime", "-f", "+31m"]
        #expect(try later.run("status", "--json").json["active"] as? Bool == false)
        try syncBothWays()
        for device in [a, b] {
            let logged = try logged(device).filter { $0["id"] as? String == stopped["id"] as? String }
            #expect(logged.count == 1 && logged.first?["outcome"] as? String == "stopped", "\(device.dataDirectory): \(logged)")
        }
    }

    @Test("a session started after one stopped keeps running when an unseen edit of the stopped one arrives")
    func laterSessionHolds() throws {
        try setUp()
        let stopped = try session(try a.run("start", "focus", "--for", "30m", "--json"))
        try sync(a, to: b)
        #expect(try a.run("stop").status == 0)
        let running = try session(try a.run("start", "focus", "--for", "20m", "--json"))
        #expect(try b.run("pause").status == 0)
        try sync(b, to: a)
        try sync(a, to: b)
        try expectBothRun(running)
        try syncBothWays()
        for device in [a, b] {
            #expect(try logged(device).filter { $0["id"] as? String == stopped["id"] as? String }.count == 1)
            #expect(try logged(device).filter { $0["id"] as? String == running["id"] as? String }.isEmpty)
        }
    }

    /// A's stop of B's session names it (`over`) in a line of A's slot log
    /// that A's later sessions supersede; compacting that log used to drop
    /// the line and, with it, the only sign that A had ended B's session
    /// knowingly: B's session came back as one started unseen, and A's
    /// next `start` was refused ("a session is already active").
    @Test("a session stopped on the other device stays stopped after that device's log is compacted")
    func stoppedElsewhereStaysStopped() throws {
        try setUp()
        let other = try session(try b.run("start", "focus", "--for", "20m", "--json"))
        try sync(b, to: a)
        #expect(try a.run("stop").status == 0)
        // Enough sessions on A for its slot log to be compacted more than once.
        for round in 1...6 {
            let started = try a.run("start", "focus", "--for", "25m")
            #expect(started.status == 0, "round \(round): \(started.out)\(started.err)")
            #expect(try a.run("stop").status == 0, "round \(round)")
        }
        try sync(a, to: b)
        for device in [a, b] {
            #expect(try device.run("status", "--json").json["active"] as? Bool == false)
            let sessions = try logged(device)
            #expect(sessions.count == 7, "\(sessions.count) sessions")
            #expect(sessions.filter { $0["id"] as? String == other["id"] as? String }.count == 1)
        }
    }
}

extension RetimeProcess {
    /// Whether `id` is this process's device (its id in its state directory).
    func owns(_ id: String) -> Bool {
        let path = dataDirectory + "-home/.local/state/retime/device-id"
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) == id
    }
}

/// A sync tool's conflict copy of a device's own session log, made long
/// ago and restored late, holds values of sessions that ended since.
@Suite("An old copy of a session log")
struct OldSessionLogCopyTests {
    let retime = RetimeProcess()

    @Test("an old conflict copy of this device's session log does not run a session that has ended since")
    func oldCopyDoesNotRunAnEndedSession() throws {
        try retime.run("group", "create", "focus", "--block", "example.com")
        try retime.run("config", "set", "shield", "none")
        let started = try #require(try retime.run("start", "focus", "--for", "30m", "--json").json["session"] as? [String: Any])
        let devices = try FileManager.default.contentsOfDirectory(atPath: retime.file("devices"))
        let device = try #require(devices.first { retime.owns($0) })
        let log = retime.file("devices/\(device)/changes/session.jsonl")
        let old = try Data(contentsOf: URL(fileURLWithPath: log))
        #expect(try retime.run("stop").status == 0)
        // More sessions than the log keeps removals of: the first one's lines are all compacted away.
        for _ in 1...6 {
            #expect(try retime.run("start", "focus", "--for", "25m").status == 0)
            #expect(try retime.run("stop").status == 0)
        }
        try old.write(to: URL(fileURLWithPath: retime.file("devices/\(device)/changes/session.sync-conflict-20261128-120000-ABCDEFG.jsonl")))
        #expect(try retime.run("status", "--json").json["active"] as? Bool == false)
        let logged = try #require(try retime.run("log", "--json").json["sessions"] as? [[String: Any]])
        #expect(logged.filter { $0["id"] as? String == started["id"] as? String }.count == 1)
        #expect(try retime.run("start", "focus", "--for", "10m").status == 0)
    }
}
