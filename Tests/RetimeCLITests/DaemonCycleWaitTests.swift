@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `cycle.waitForActivity` with the daemon's services in the test process,
/// on the manual clock, with a scripted presence source: the daemon hears
/// the user lock the screen in a break, the work waits past the break's
/// end with the block down, and the block goes up at the return (issue 33).
@Suite("The daemon holds a cycle's work for its away user")
struct DaemonCycleWaitTests {
    let base = DaemonPresenceTests()

    func block() async throws -> ShieldState? {
        try await base.container().resolve((any ShieldDirectory).self).configured().state()
    }

    @Test("the block is raised at the return, not at the break's end; phase-started work is dated at the return")
    func raisedAtReturn() async throws {
        let setup = base.container()
        let clock = base.clock, presence = base.presence
        try await setup.resolve((any SettingsStore).self).set("on", for: SettingKey.cycleWaitForActivity.rawValue)
        _ = try await setup.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["example.com"])
        var plan = SessionPlan(groupName: "work", length: .openEnded)
        plan.cycle = .fixed(work: 1_500, breakLength: 300, rounds: 2)
        let started = try await setup.resolve(StartSessionUseCase.self).execute(plan).session
        #expect(started.cycle?.waitsForUser == true, "cycle.waitForActivity is read at the start")
        let sessions = try setup.resolve((any SessionRepository).self)

        let wake = DaemonPresenceTests.SteppedWake()
        let running = base.runDaemon(waking: wake)

        clock.advance(by: 1_500)                        // the break's start: the daemon's pass lowers the block
        wake.post(.deadline)
        #expect(try await base.until { try await sessions.current()?.isPaused == true }, "\(base.diagnosis())")
        presence.send(.locked)
        #expect(try await base.until { try await sessions.current()?.openAway != nil })
        clock.advance(by: 300)                          // the break's end, the user away: work waits
        wake.post(.deadline)
        #expect(try await base.until { try await sessions.current()?.openWait != nil })
        #expect(try await block() == nil, "the block stays down while work waits")

        clock.advance(by: 720)
        let back = clock.now()
        presence.send(.present)                         // the return wakes the pass at once
        #expect(try await base.until { try await sessions.current()?.cyclePhase?.kind == .work })
        #expect(try await base.until { try await block() != nil }, "the block is up at the return")
        #expect(wake.reasons.contains(.dataChanged))
        wake.post(.signal(SIGTERM))
        try await running.value

        let session = try #require(try await sessions.current())
        #expect(session.cyclePhase?.start == back && session.cyclePhase?.round == 2)
        #expect(session.plannedEnd == started.plannedEnd.map { $0 + 720 })
        // How late the block followed the return: the pass the presence
        // service woke, on the manual clock that did not move meanwhile.
        let events = (try? String(contentsOfFile: try base.runtime.device().events, encoding: .utf8)) ?? ""
        let work = events.split(separator: "\n").filter { $0.contains("phase-started") && $0.contains("\"work\"") }
        #expect(work.count == 1 && work.first?.contains("\"lateMs\":0") == true, "\(work)")
    }
}
