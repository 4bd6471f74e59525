import Foundation
import Testing

/// The unlock rule held by the system service (cli.md, "Ending a strict
/// session early"): the service keeps the user's `unlock` with a strict
/// block when it is raised and applies it, so editing the user's files to
/// weaken it gains nothing. Clients run unprivileged (`setpriv`), the hosts
/// file is the harness's own.
@Suite("unlock held by the system service", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceUnlockTests {
    /// Edits the user's config as a text editor could: a later change line
    /// in this device's config log setting `key` to `value`.
    static func editConfig(_ user: RetimeProcess, _ key: String, _ value: String) throws {
        let log = try user.deviceFile("changes/config.jsonl")
        let device = URL(fileURLWithPath: log).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
        let stamp = Int(Date().timeIntervalSince1970 * 1_000) + 1_000
        let line = #"{"at":"\#(stamp)-0-\#(device)","key":"\#(key)","value":"\#(value)"}"# + "\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
        try handle.close()
    }

    /// A user of `system` with `unlock` set to `rule` (and, if asked, the
    /// passcode `right-one`) and a strict 30-minute session of `work`
    /// (example.com) running through the service.
    static func strictSession(_ system: SystemServiceHarness, unlock rule: String, passcode: Bool = true) throws -> RetimeProcess {
        let user = system.client()
        if passcode { #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0) }
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("config", "set", "unlock", rule).status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        return user
    }

    @Test("delay: stop starts the service's countdown too; the block stays until it runs out, then the stop lowers it")
    func delay() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = try Self.strictSession(system, unlock: "delay:3s", passcode: false)
        let stop = try user.run("--json", "stop")
        #expect(stop.status == 0 && (stop.json["unlock"] as? [String: Any])?["started"] as? Bool == true, "\(stop.err)")
        #expect(system.blocked == ["example.com"], "held while the countdown runs")
        // Any command after the countdown's end carries the stop out, and the service lowers the block.
        #expect(try eventually(within: 15) { _ = try user.run("status"); return system.blocked.isEmpty })
        #expect(try user.loggedSessions().first?["outcome"] as? String == "stopped")
    }

    @Test("never, edited to passcode in the user's files during the session: the right passcode ends the session in the user's data, not the service's block")
    func neverEditedToPasscode() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = try Self.strictSession(system, unlock: "never")
        #expect(try user.run(["stop", "--passcode-stdin"], input: "right-one\n").status == 3)

        try Self.editConfig(user, "unlock", "passcode")
        #expect(try user.run("config", "get", "unlock").out.contains("passcode"), "the edit took")
        let cheat = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect(cheat.status != 0, "the service's rule decides: \(cheat.out) \(cheat.err)")
        #expect(system.blocked == ["example.com"])
        #expect((try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])?.count == 1)
    }

    @Test("delay, its delay removed from the user's files during the session: a stop with the passcode lifts nothing before the service's countdown")
    func delayEditedAway() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = try Self.strictSession(system, unlock: "delay:1h")

        try Self.editConfig(user, "unlock", "passcode")
        // The session records the rule it started under: edited too.
        let session = try user.changeLog("session")
        let edited = try String(contentsOfFile: session, encoding: .utf8)
            .replacingOccurrences(of: #""unlock":"delay:1h""#, with: #""unlock":"passcode""#)
        try edited.write(toFile: session, atomically: false, encoding: .utf8)
        let cheat = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect(cheat.status != 0, "\(cheat.out) \(cheat.err)")
        #expect(system.blocked == ["example.com"])
        // Nor does text typed back: the service keeps the delay.
        try Self.editConfig(user, "unlock", "typing:16")
        _ = try user.run("status")
        #expect(system.blocked == ["example.com"])
    }

    @Test("typing: the text typed back on a terminal lowers the service's block; the passcode from a pipe does not",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func typing() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        var user = try Self.strictSession(system, unlock: "typing:16")
        #expect(try user.run(["stop", "--passcode-stdin"], input: "right-one\n").status == 3)
        #expect(system.blocked == ["example.com"])

        user.launcher += ["/usr/bin/python3", UnlockEndToEndTests.driver, "Type it: ={shown:Text: }\\r", "--"]
        let typed = try user.run("stop")
        #expect(typed.status == 0 && typed.out.contains("Stopped"), "\(typed.out) \(typed.err)")
        #expect(system.blocked.isEmpty)
    }

    @Test("typing: the service issues the text and checks it; a forged request with the right count but the wrong text lowers nothing",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func forgedTyping() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = try Self.strictSession(system, unlock: "typing:16", passcode: false)
        let session = try #require((try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])?.first?["session"] as? String)
        // The user's own client, speaking the protocol as the user (nobody).
        let forger = Process()
        forger.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        forger.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", """
            import json, socket, sys
            def ask(request):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                request["version"] = 1; request["session"] = sys.argv[2]
                s.sendall(json.dumps(request).encode() + b"\\n")
                data = b""
                while not data.endswith(b"\\n"):
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                return json.loads(data)
            said = {}
            said["countOnly"] = ask({"op": "lower", "typed": 16})["ok"]
            text = ask({"op": "typingChallenge"})["challenge"]
            said["length"] = len(text)
            wrong = ("x" if text[0] != "x" else "y") + text[1:]
            said["wrongText"] = ask({"op": "typedBack", "typedText": wrong})["ok"]
            said["afterWrong"] = ask({"op": "lower", "typed": 16})["ok"]
            said["reused"] = ask({"op": "typedBack", "typedText": text})["ok"]
            text = ask({"op": "typingChallenge"})["challenge"]
            said["rightText"] = ask({"op": "typedBack", "typedText": text})["ok"]
            said["lower"] = ask({"op": "lower"})["ok"]
            print(json.dumps(said))
            """, system.socket, session]
        let answer = Pipe()
        forger.standardOutput = answer
        try forger.run()
        forger.waitUntilExit()
        let said = try JSONSerialization.jsonObject(with: answer.fileHandleForReading.readDataToEndOfFile()) as? [String: Any] ?? [:]
        #expect(said["countOnly"] as? Bool == false, "a count alone: \(said)")
        #expect(said["length"] as? Int == 16)
        #expect(said["wrongText"] as? Bool == false && said["afterWrong"] as? Bool == false, "the wrong text: \(said)")
        #expect(said["reused"] as? Bool == false, "a challenge answered once is gone: \(said)")
        #expect(said["rightText"] as? Bool == true && said["lower"] as? Bool == true, "the right text: \(said)")
        #expect(system.blocked.isEmpty)
    }
}
