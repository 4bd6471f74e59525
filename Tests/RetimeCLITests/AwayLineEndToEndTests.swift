@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Testing

/// The away line as a user sees it (issue 33): a stretch recorded in the
/// data folder by the use case the daemon's presence service runs, then
/// the binary's `status`, `status --json` and `keep-away` on that folder.
@Suite("The away line, through the binary")
struct AwayLineEndToEndTests {
    let retime = RetimeProcess()

    /// The daemon's services on the binary's data folder and home, on a
    /// manual clock set to now (the binary reads the real one).
    func container(_ clock: ManualClock) -> Container {
        let runtime = RuntimeContext(dataDirectory: retime.dataDirectory, logLevel: .warning,
                                     environment: ["HOME": retime.dataDirectory + "-home"])
        var registry = DaemonRoot.registry(runtime)
        registry.register((any RetimeShared.Clock).self, value: clock)
        return Container(registry)
    }

    @Test("status prints 'away 12m (locked) — ...' after a stretch, --json has lastAway, and keep-away clears both")
    func awayLineAndKeepAway() async throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work", "--for", "2h", "--at", "20m ago").status == 0)
        let clock = ManualClock(now: Date())
        let presence = try container(clock).resolve(RecordPresenceUseCase.self)
        let now = clock.now()
        try await presence.execute(PresenceChange(state: .locked, since: now - 900), threshold: 300)
        try await presence.execute(PresenceChange(state: .present, since: now - 180), threshold: 300)

        let status = try retime.run("status")
        #expect(status.status == 0)
        #expect(status.out.contains("away 12m (locked) — 'retime keep-away' counts it as focused"), "\(status.out)")
        let session = try #require(try retime.run("status", "--json").json["session"] as? [String: Any])
        let last = try #require(session["lastAway"] as? [String: Any], "\(session)")
        #expect(last["reason"] as? String == "locked" && last["seconds"] as? Double == 720, "\(last)")
        #expect(abs((session["awaySeconds"] as? Double ?? 0) - 720) < 1, "\(session)")

        let keep = try retime.run("keep-away")
        #expect(keep.status == 0, "\(keep.err)")
        #expect(!(try retime.run("status").out.contains("away 12m")))
        let after = try #require(try retime.run("status", "--json").json["session"] as? [String: Any])
        #expect(after["lastAway"] is NSNull, "\(after)")
        #expect(after["awaySeconds"] as? Double == 0)
        #expect(try retime.run("keep-away", "--json").errorCode == "away.none")
    }

    @Test("cycle.waitForActivity: status says 'work waits for you' (JSON phase waiting) while the user is away past the break; at the return, work")
    func workWaitsInStatus() async throws {
        #expect(try retime.run("config", "set", "cycle.waitForActivity", "maybe", "--json").errorCode == "config.invalidValue")
        #expect(try retime.run("config", "set", "cycle.waitForActivity", "on").status == 0)
        try retime.run("group", "create", "work")
        // 25/5: the first break ran from 7 to 2 minutes ago.
        #expect(try retime.run("start", "work", "--cycle", "25m/5m", "--at", "32m ago").status == 0)
        let clock = ManualClock(now: Date())
        let presence = try container(clock).resolve(RecordPresenceUseCase.self)
        try await presence.execute(PresenceChange(state: .locked, since: clock.now() - 480), threshold: 300)

        let waiting = try retime.run("status")
        #expect(waiting.out.contains("work waits for you (not blocked) · round 2/4"), "\(waiting.out)")
        let cycle = try #require((try retime.run("status", "--json").json["session"] as? [String: Any])?["cycle"] as? [String: Any])
        #expect(cycle["phase"] as? String == "waiting" && cycle["waitForActivity"] as? Bool == true, "\(cycle)")

        try await presence.execute(PresenceChange(state: .present, since: clock.now()), threshold: 300)
        let back = try #require((try retime.run("status", "--json").json["session"] as? [String: Any]))
        let phase = try #require(back["cycle"] as? [String: Any])
        #expect(phase["phase"] as? String == "work" && phase["round"] as? Int == 2, "\(phase)")
        #expect(abs((phase["waitedSeconds"] as? Double ?? 0) - 120) < 5, "\(phase)")
    }
}
