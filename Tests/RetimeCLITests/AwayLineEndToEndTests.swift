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
}
