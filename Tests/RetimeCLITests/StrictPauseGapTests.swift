import Foundation
import Testing

/// The pause gap (issue 32): a strict session paused early, by the unlock
/// rule in force, comes back under that same rule however the config is
/// edited during the pause. With the system service the service keeps the
/// rule with the (lowered) block; without it the session records it.
@Suite("the unlock rule holds across a strict session's pause")
struct StrictPauseGapTests {
    /// Pauses `user`'s strict session under `unlock delay:1s`: the pause
    /// starts the countdown, and a later command carries it out.
    static func pauseByCountdown(_ user: RetimeProcess) throws {
        let pause = try user.run("--json", "pause")
        #expect(pause.status == 0 && (pause.json["unlock"] as? [String: Any])?["started"] as? Bool == true, "the countdown starts: \(pause.out) \(pause.err)")
        #expect(try eventually(within: 10) { Self.paused(try user.run("--json", "status").json) }, "paused once the countdown ran out")
    }

    static func paused(_ status: [String: Any]) -> Bool {
        (status["session"] as? [String: Any])?["paused"] as? Bool == true
    }

    static func active(_ user: RetimeProcess) throws -> Bool {
        (try user.run("--json", "status").json["session"] as? [String: Any])?["outcome"] as? String == "active"
    }

    @Test("through the system service: unlock edited to passcode during the pause; after resume the passcode stops nothing",
          .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
    func throughTheService() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = try SystemServiceUnlockTests.strictSession(system, unlock: "delay:1s")
        try Self.pauseByCountdown(user)
        #expect(system.blocked.isEmpty, "lowered for the pause")

        try SystemServiceUnlockTests.editConfig(user, "unlock", "passcode")
        // And the rule the session recorded: the service's record decides.
        let session = try user.changeLog("session")
        let edited = try String(contentsOfFile: session, encoding: .utf8)
            .replacingOccurrences(of: #""unlock":"delay:1s""#, with: #""unlock":"passcode""#)
        try edited.write(toFile: session, atomically: false, encoding: .utf8)
        #expect(try user.run("resume").status == 0)
        #expect(system.blocked == ["example.com"])
        let stop = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect(stop.status != 0, "the service keeps delay:1s, whatever the user's files say: \(stop.out) \(stop.err)")
        #expect(system.blocked == ["example.com"])
    }

    @Test("without the service: the session keeps the rule it started under; edited to passcode during the pause, the passcode stops nothing")
    func withoutTheService() throws {
        let user = RetimeProcess()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("config", "set", "unlock", "delay:1s").status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        try Self.pauseByCountdown(user)
        try SystemServiceUnlockTests.editConfig(user, "unlock", "passcode")
        #expect(try user.run("config", "get", "unlock").out.contains("passcode"), "the edit took")
        #expect(try user.run("resume").status == 0)
        let stop = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect((stop.out + stop.err).lowercased().contains("countdown started"), "delay:1s still: \(stop.out) \(stop.err)")
        #expect(try Self.active(user), "a countdown started; the session goes on")
    }
}
