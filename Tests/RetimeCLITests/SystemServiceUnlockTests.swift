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
}
