import Adapters
import Domain
import Foundation
import Testing

/// `cycle.waitForActivity` (issue 33) on the manual clock: a cycle's work
/// phase does not begin while its user is away; it begins at their return,
/// and the phases after it, and the cycle's end, come later by the wait.
@Suite("Focus cycles wait for their user, on a test clock")
struct CycleWaitTests {
    static let threshold: TimeInterval = 300
    /// 25/5 for three rounds: 25m work, 5m break, 25m, 5m, 25m.
    static let cycle = Cycle.fixed(work: 1_500, breakLength: 300, rounds: 3)

    func start(_ world: SessionWorld, _ cycle: Cycle, strict: Bool = false) async throws -> Session {
        var plan = SessionPlan(groupName: "work", length: .openEnded, strict: strict)
        plan.cycle = cycle
        return try await world.start.execute(plan).session
    }

    func record(_ world: SessionWorld, _ state: PresenceChange.State, since: Date? = nil) async throws {
        let presence = RecordPresenceUseCase(sessions: world.sessions, clock: world.clock)
        try await presence.execute(PresenceChange(state: state, since: since ?? world.clock.now()), threshold: Self.threshold)
    }

    /// The phase as `status` (which reconciles) finds it, and the block.
    func phase(_ world: SessionWorld) async throws -> String {
        guard let status = try await world.status.execute(), let phase = status.session.cyclePhase else { return "ended" }
        return "\(phase.kind.rawValue) \(phase.round) \(try await world.shieldState != nil ? "up" : "down")"
    }

    func current(_ world: SessionWorld) async throws -> Session { try #require(try await world.sessions.current()) }

    @Test("a break that ends while the user is locked away: work waits, block down; at the return work begins and every later phase comes later by the wait")
    func waitsAndShifts() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle.waitingForActivity())
        let t0 = session.startedAt, plannedEnd = try #require(session.plannedEnd)
        world.clock.advance(by: 1_500)
        #expect(try await phase(world) == "break 1 down")
        try await record(world, .locked)                 // the screen locked as the break begins
        world.clock.advance(by: 300)                     // the break is over: the user is still away
        #expect(try await phase(world) == "waiting 2 down")
        world.clock.advance(by: 600)
        #expect(try await phase(world) == "waiting 2 down", "ten minutes later, still waiting")
        var status = try #require(try await world.status.execute())
        #expect(status.remaining == plannedEnd.timeIntervalSince(t0 + 1_800), "time left stands still while work waits")
        #expect(!(try await current(world)).isExpired(at: plannedEnd + 1, boot: world.clock.bootTime()))

        try await record(world, .present)                // back, 10 minutes after the break's end
        let back = world.clock.now()
        #expect(try await phase(world) == "work 2 up")
        let waited = try await current(world)
        #expect(waited.cyclePhase?.start == back, "work begins at the return")
        #expect(waited.cyclePhase?.end == t0 + 2 * 1_500 + 300 + 600, "its break comes later by the wait")
        #expect(waited.plannedEnd == plannedEnd + 600, "the cycle ends later by the wait")
        #expect(waited.cycleWaits == [CycleWait(round: 1, start: t0 + 1_800, end: back)])
        #expect(waited.breaks.first == Break(start: t0 + 1_500, end: back), "the wait is the break's, as the block was")
        status = try #require(try await world.status.execute())
        #expect(status.remaining == plannedEnd.timeIntervalSince(t0 + 1_800))

        world.clock.advance(by: 1_499)
        #expect(try await phase(world) == "work 2 up")
        world.clock.advance(by: 1)
        #expect(try await phase(world) == "break 2 down")
        world.clock.advance(by: 300)
        #expect(try await phase(world) == "work 3 up", "no one away: no wait")
        world.clock.advance(by: 1_500)
        #expect(try await phase(world) == "ended")
        let ended = try #require(try await world.ended.first)
        #expect(ended.endedAt == plannedEnd + 600 && ended.outcome == .completed)
        #expect(ended.focused(at: world.clock.now()) == 3 * 1_500, "every work phase ran in full")
        let phases = world.hooks.events.filter { $0.kind == .phaseStarted }.map { "\($0.phase!.kind.rawValue) \($0.phase!.round)" }
        #expect(phases == ["break 1", "work 2", "break 2", "work 3"], "waiting is no phase-started event")
    }

    @Test("strict: a strict cycle never waits (its phases are fixed when it starts): work begins at the break's end while the user is away, the end stays")
    func strictNeverWaits() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle.waitingForActivity(), strict: true)
        let plannedEnd = try #require(session.plannedEnd)
        #expect(session.cycle?.waitsForUser == false, "the start drops the wait from a strict cycle")
        world.clock.advance(by: 1_500)
        #expect(try await phase(world) == "break 1 down")
        try await record(world, .asleep)                 // the lid closed at the break's start
        world.clock.suspend(for: 900)                    // asleep through the break's end
        #expect(try await phase(world) == "work 2 up", "the block is back on the break's end, away or not")
        let running = try await current(world)
        #expect(running.plannedEnd == plannedEnd && running.bootDeadline == session.bootDeadline)
    }

    @Test("off (the default): the break ends on its timeline while the user is away, and nothing shifts")
    func offUnchanged() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle)
        world.clock.advance(by: 1_400)
        try await record(world, .locked)
        world.clock.advance(by: 400)
        #expect(try await phase(world) == "work 2 up", "work begins at the break's end")
        world.clock.advance(by: 600)
        try await record(world, .present)
        #expect(try await phase(world) == "work 2 up")
        let current = try await current(world)
        #expect(current.plannedEnd == session.plannedEnd && current.cycleWaits.isEmpty)
        #expect(current.cyclePhase?.start == session.startedAt + 1_800)
    }

    @Test("idle for less than away.threshold at the break's end is not away: work begins on time")
    func shortIdleDoesNotWait() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle.waitingForActivity())
        world.clock.advance(by: 1_700)
        try await record(world, .idle, since: world.clock.now().addingTimeInterval(-60))   // input stopped 2m40s before the break's end
        world.clock.advance(by: 100)
        #expect(try await phase(world) == "work 2 up")
        #expect(try await current(world).plannedEnd == session.plannedEnd)
    }

    @Test("a pass that comes after the return (no process ran at the break's end) begins the work at the return")
    func lateReconcile() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle.waitingForActivity())
        let t0 = session.startedAt
        world.clock.advance(by: 1_500)
        try await record(world, .locked)
        world.clock.advance(by: 1_200)                   // locked 20 minutes: through the break's end
        try await record(world, .present)                // recorded, with no reconcile since the break began
        world.clock.advance(by: 60)
        #expect(try await phase(world) == "work 2 up")
        let current = try await current(world)
        #expect(current.cyclePhase?.start == t0 + 2_700)
        #expect(current.plannedEnd == session.plannedEnd.map { $0 + 900 })
    }

    @Test("retime next while work waits begins it now")
    func nextEndsTheWait() async throws {
        let world = try await SessionWorld()
        let session = try await start(world, Self.cycle.waitingForActivity())
        world.clock.advance(by: 1_500)
        try await record(world, .locked)
        world.clock.advance(by: 400)
        #expect(try await phase(world) == "waiting 2 down")
        let next = NextPhaseUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active)
        let moved = try await next.execute().session
        #expect(moved.cyclePhase?.kind == .work && moved.cyclePhase?.start == world.clock.now())
        #expect(moved.plannedEnd == session.plannedEnd.map { $0 + 100 })
        #expect(try await world.shieldState != nil)
    }

    @Test("cycle.waitForActivity takes on or off (any case), defaults to off")
    func setting() throws {
        #expect(try SettingKey.cycleWaitForActivity.validate(" ON ") == "on")
        #expect(throws: SettingError.self) { try SettingKey.cycleWaitForActivity.validate("yes") }
        #expect(!Settings(stored: [:], dataDirectory: "/d").cycleWaitsForActivity)
        #expect(Settings(stored: ["cycle.waitForActivity": "on"], dataDirectory: "/d").cycleWaitsForActivity)
    }
}
