#if canImport(Glibc)
import Glibc
#endif
import Domain
import Foundation
import Testing

/// Issue 44: a block only tightens (semantics.md, "Service, second pass").
/// A user who knows a session's id before its strict raise (a scheduled
/// interval's is derived from the schedule; a second machine reads it from
/// the synced folder) raises it early, loosely, with raw requests of its
/// own: the strict raise that follows takes the strict terms all the same,
/// and the block cannot be lowered early.
@Suite("A strict block raised over a loose one of the same id", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceTightenTests {
    static let user: UInt32 = 65_534

    /// Sends `requests` (JSON objects, each given the session's id) to the
    /// service as `user`, in order; returns each answer.
    static func ask(_ system: SystemServiceHarness, session: String, _ requests: [String]) throws -> [[String: Any]] {
        let asker = Process()
        asker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // The attack tests' `ask`, one request a connection; argv[2] (its
        // "ready" file) is not used here.
        asker.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "/usr/bin/python3", "-c", SystemServiceAttackTests.prelude + """
            for line in sys.argv[4:]:
                request = json.loads(line); request["version"] = 1; request["session"] = sys.argv[3]
                print(ask(request).decode().strip())
            """, system.socket, "-", session] + requests
        let out = Pipe()
        asker.standardOutput = out
        try asker.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        asker.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? ["unreadable": String($0)]
        }
    }

    /// The service's block of `session` for the user, as `system status` lists it.
    static func held(_ system: SystemServiceHarness, _ session: String) throws -> [String: Any]? {
        let blocks = try ask(system, session: session, [#"{"op": "status"}"#]).first?["blocks"] as? [[String: Any]]
        return blocks?.first { $0["session"] as? String == session }
    }

    @Test("raised loosely and open-ended first, then strict (as the client raises it): strict, the strict end, lowered by nothing; a loose raise after changes nothing",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func looseThenStrict() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let session = UUID().uuidString.lowercased()
        let end = Timestamp.format(Date().addingTimeInterval(3_600), fractionDigits: 0)
        let answers = try Self.ask(system, session: session, [
            #"{"op": "raise", "targets": ["decoy.example"], "strict": false}"#,
            #"{"op": "raise", "targets": ["victim.example"], "strict": true, "plannedEnd": "\#(end)", "length": 3600, "unlock": "never"}"#,
            #"{"op": "lower"}"#,
            #"{"op": "raise", "targets": [], "strict": false, "plannedEnd": "\#(Timestamp.format(Date()))", "length": 1}"#,
            #"{"op": "lower"}"#,
        ])
        #expect(answers.count == 5 && answers[0]["ok"] as? Bool == true && answers[1]["ok"] as? Bool == true, "\(answers)")
        #expect(answers[2]["ok"] as? Bool == false && answers[4]["ok"] as? Bool == false, "both lowers refused: \(answers)")
        let held = try #require(try Self.held(system, session))
        #expect(held["strict"] as? Bool == true, "\(held)")
        #expect((held["plannedEnd"] as? String).flatMap(Timestamp.parse) == Timestamp.parse(end), "the strict raise's end: \(held)")
        #expect(Set(system.blocked) == ["decoy.example", "victim.example"], "nothing it held was dropped: \(system.blocked)")
        #expect(service.process.isRunning)
    }

    @Test("a second device's strict session, its id raised loosely on this machine before this device raised it: the next command raises it strict",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func secondDevice() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        // The laptop: another machine, blocking nothing here.
        let laptop = RetimeProcess()
        try laptop.run("group", "create", "work", "--block", "victim.example")
        try laptop.run("config", "set", "shield", "none")
        let started = try laptop.run("start", "work", "--for", "30m", "--strict")
        #expect(started.status == 0, "\(started.err)")
        let session = try #require((try laptop.run("status", "--json").json["session"] as? [String: Any])?["id"] as? String)
        // This machine's user, sharing the folder through a sync tool.
        let desktop = system.client(uid: Self.user)
        try desktop.run("config", "set", "shield", "system")
        try Self.carry(laptop, to: desktop)
        let early = try Self.ask(system, session: session, [#"{"op": "raise", "targets": [], "strict": false}"#])
        #expect(early.first?["ok"] as? Bool == true, "\(early)")
        let status = try desktop.run("status")
        #expect(status.status == 0, "\(status.err)")
        let held = try #require(try Self.held(system, session))
        #expect(held["strict"] as? Bool == true, "the desktop's status raised it strict: \(held)")
        #expect(system.blocked == ["victim.example"])
        let lowered = try Self.ask(system, session: session, [#"{"op": "lower"}"#])
        #expect(lowered.first?["ok"] as? Bool == false, "\(lowered)")
        let doctor = try desktop.run("doctor", "--json")
        #expect(!doctor.out.contains("not strict"), "doctor finds the block strict: \(doctor.out)")
        #expect(service.process.isRunning)
    }

    /// What a sync tool does: the laptop's device folders and history
    /// copied into the desktop's data folder, owned by the desktop's user.
    static func carry(_ from: RetimeProcess, to: RetimeProcess) throws {
        let files = FileManager.default
        for top in ["devices", "history"] {
            for device in (try? files.contentsOfDirectory(atPath: from.file(top))) ?? [] where !files.fileExists(atPath: to.file("\(top)/\(device)")) {
                try files.createDirectory(atPath: to.file(top), withIntermediateDirectories: true)
                try files.copyItem(atPath: from.file("\(top)/\(device)"), toPath: to.file("\(top)/\(device)"))
            }
        }
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "\(user):\(user)", to.dataDirectory]
        try chown.run()
        chown.waitUntilExit()
    }
}
