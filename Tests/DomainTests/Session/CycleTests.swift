import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Focus cycles on the manual clock (cli.md, "Focus cycles"; semantics.md,
/// "Cycles and allowances"): every phase edge, the block following it, the
/// strict rules, a moved clock and a reboot.
@Suite("Focus cycles, on a test clock")
struct CycleTests {
    func next(_ world: SessionWorld) -> NextPhaseUseCase {
        NextPhaseUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active)
    }

    func startCycle(_ world: SessionWorld, _ cycle: Cycle, strict: Bool = false, length: SessionLength = .openEnded) async throws -> Session {
        var plan = SessionPlan(groupName: "work", length: length, strict: strict)
        plan.cycle = cycle
        return try await world.start.execute(plan).session
    }

    /// The block as the spy shield holds it: up or down.
    func blockUp(_ world: SessionWorld) async throws -> Bool { try await world.shieldState != nil }

    /// The phase as `status` (which reconciles) finds it.
    func phase(_ world: SessionWorld) async throws -> String {
        guard let status = try await world.status.execute(), let phase = status.session.cyclePhase else { return "ended" }
        return "\(phase.kind.rawValue) \(phase.round)"
    }

    @Test("the daemon wakes at every edge: the block is lowered for each break, raised at its end, the long one after the fourth round")
    func everyEdge() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        let world = daemon.world
        let session = try await startCycle(world, .fixed(work: 25 * 60, breakLength: 5 * 60, longBreak: 15 * 60, rounds: 5))
        #expect(session.plannedEnd == session.startedAt.addingTimeInterval(5 * 25 * 60 + 3 * 5 * 60 + 15 * 60))
        var seen: [String] = []
        while true {
            let step = try await daemon.step.execute()
            let minute = Int(world.clock.now().timeIntervalSince(session.startedAt) / 60)
            let current = try await world.sessions.current()
            seen.append("\(minute) \(current?.cyclePhase.map { "\($0.kind.rawValue) \($0.round)" } ?? "ended") \(try await blockUp(world) ? "up" : "down")")
            guard let deadline = step.nextDeadline else { break }
            world.clock.advance(by: deadline.timeIntervalSince(world.clock.now()))
        }
        #expect(seen == ["0 work 1 up", "25 break 1 down", "30 work 2 up", "55 break 2 down", "60 work 3 up", "85 break 3 down",
                         "90 work 4 up", "115 long break 4 down", "130 work 5 up", "155 ended down"])
        let ended = try #require(try await world.ended.first)
        #expect(ended.outcome == .completed && ended.breaks.count == 4 && ended.cycle == session.cycle)
        #expect(ended.focused(at: world.clock.now()) == 5 * 25 * 60, "focused time is the work phases run")
        let phases = world.hooks.events.filter { $0.kind == .phaseStarted }.map { "\($0.phase!.kind.rawValue) \($0.phase!.round)" }
        #expect(phases == ["break 1", "work 2", "break 2", "work 3", "break 3", "work 4", "long break 4", "work 5"])
    }

    @Test("a command that runs after edges passed unseen records them at their instants and aligns the block")
    func catchUp() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 60, breakLength: 30, rounds: 3))
        world.clock.advance(by: 100)   // work 1, break 1 (60-90), now in work 2
        #expect(try await phase(world) == "work 2")
        #expect(try await blockUp(world))
        world.clock.advance(by: 55)    // break 2 from 150 s
        #expect(try await phase(world) == "break 2")
        #expect(try await !blockUp(world))
        world.clock.advance(by: 1_000)
        #expect(try await phase(world) == "ended")
        let ended = try #require(try await world.ended.first)
        #expect(ended.breaks == [Break(start: session.startedAt + 60, end: session.startedAt + 90),
                                 Break(start: session.startedAt + 150, end: session.startedAt + 180)])
        #expect(ended.endedAt == session.startedAt + 240 && ended.outcome == .completed)
    }

    @Test("next: a work phase into its break, a break into work; the timeline stays")
    func nextMovesOneEdge() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 60, breakLength: 30, rounds: 2))
        world.clock.advance(by: 10)
        var moved = try await next(world).execute().session
        #expect(moved.cyclePhase?.kind == .shortBreak && moved.cyclePhase?.end == session.startedAt + 90)
        #expect(try await !blockUp(world))
        world.clock.advance(by: 5)
        moved = try await next(world).execute().session
        #expect(moved.cyclePhase?.kind == .work && moved.cyclePhase?.round == 2)
        #expect(try await blockUp(world))
        #expect(moved.plannedEnd == session.plannedEnd)
        await #expect(throws: SessionError.lastRound(session.plannedEnd!)) { try await next(world).execute() }
        world.clock.advance(by: 200)
        #expect(try await phase(world) == "ended")
        let ended = try #require(try await world.ended.first)
        #expect(ended.focused(at: world.clock.now()) == 150 - 5)
    }

    @Test("a strict cycle's work phase cannot be ended early (exit 3); its break can, into work")
    func strictNext() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 60, breakLength: 30, rounds: 2), strict: true)
        world.clock.advance(by: 10)
        await #expect(throws: SessionError.strictWorkPhase(until: session.startedAt + 60)) { try await next(world).execute() }
        #expect(SessionError.strictWorkPhase(until: session.startedAt).kind == .authorization)
        #expect(try await blockUp(world))
        world.clock.advance(by: 55)
        #expect(try await phase(world) == "break 1")
        let back = try await next(world).execute().session
        #expect(back.cyclePhase?.kind == .work)
        #expect(try await blockUp(world))
    }

    @Test("next on a session without a cycle, and pause or resume of a cycle, say why")
    func nextWithoutCycle() async throws {
        let world = try await SessionWorld()
        try await world.startWork()
        await #expect(throws: SessionError.noCycle) { try await next(world).execute() }
        _ = try await world.stop.execute()
        _ = try await startCycle(world, .fixed(work: 60, breakLength: 30))
        await #expect(throws: SessionError.cycleTakesItsBreaks) { try await world.pause.execute() }
        await #expect(throws: SessionError.cycleTakesItsBreaks) { try await world.resume.execute() }
    }

    @Test("bad cycles are refused before anything starts")
    func invalidCycles() async throws {
        let world = try await SessionWorld()
        await #expect(throws: SessionError.self) { try await startCycle(world, .fixed(work: 0, breakLength: 30)) }
        await #expect(throws: SessionError.self) { try await startCycle(world, .fixed(work: 60, breakLength: 30, rounds: 0)) }
        await #expect(throws: SessionError.self) { try await startCycle(world, .fixed(work: 7_200, breakLength: 600, rounds: 12)) }
        #expect(try await world.sessions.current() == nil)
    }

    @Test("a strict cycle: moving the clock forward does not shorten a work phase, moving it back does not stretch a break")
    func movedClock() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 600, breakLength: 300, rounds: 2), strict: true)
        world.clock.advance(by: 100)
        world.clock.setWallClock(to: session.startedAt + 700)   // the wall clock says the break began
        #expect(try await phase(world) == "work 1")
        #expect(try await blockUp(world))
        let wake = try #require(try await world.sessions.current()?.nextCycleEdge(at: world.clock.now(), boot: world.clock.bootTime()))
        #expect(wake == world.clock.now() + 500, "the daemon wakes when the boot-time clock has run the work phase")
        world.clock.advance(by: 500)
        #expect(try await phase(world) == "break 1")
        #expect(try await !blockUp(world))
        // Back by an hour in the break: the boot-time clock ends it on time.
        world.clock.setWallClock(to: world.clock.now() - 3_600)
        world.clock.advance(by: 300)
        #expect(try await phase(world) == "work 2")
        #expect(try await blockUp(world))
    }

    @Test("a non-strict cycle follows the wall clock")
    func nonStrictFollowsWallClock() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 600, breakLength: 300, rounds: 2))
        world.clock.setWallClock(to: session.startedAt + 700)
        #expect(try await phase(world) == "break 1")
    }

    @Test("after a reboot the wall clock alone places a strict cycle's phases, as it ends a strict session")
    func reboot() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 600, breakLength: 300, rounds: 2), strict: true)
        world.clock.advance(by: 100)
        world.clock.reboot(after: 550)   // off from 100 s to 650 s: the break began while it was off
        #expect(world.clock.now() == session.startedAt + 650)
        #expect(try await phase(world) == "break 1")
        #expect(try await !blockUp(world))
        world.clock.advance(by: 250)
        #expect(try await phase(world) == "work 2")
        #expect(try await blockUp(world))
    }

    @Test("a flow works until next, then rests a fifth of it; the block follows")
    func flow() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .flow())
        #expect(session.plannedEnd == nil)
        world.clock.advance(by: 1_500)
        #expect(try await phase(world) == "work 1")
        #expect(try await world.sessions.current()?.nextCycleEdge(at: world.clock.now(), boot: nil) == nil)
        let resting = try await next(world).execute().session
        #expect(resting.cyclePhase?.end == world.clock.now() + 300)
        #expect(try await !blockUp(world))
        world.clock.advance(by: 299)
        #expect(try await phase(world) == "break 1")
        world.clock.advance(by: 1)
        #expect(try await phase(world) == "work 2")
        #expect(try await blockUp(world))
        let stopped = try await world.stop.execute().session
        #expect(stopped.focused(at: world.clock.now()) == 1_500)
    }

    @Test("a cycle's session whose group was renamed while it ran keeps its cycle in history, and report counts its rounds")
    func renamedGroupKeepsCycle() async throws {
        let world = try await SessionWorld()
        let session = try await startCycle(world, .fixed(work: 60, breakLength: 30, rounds: 3))
        var renamed = world.work
        renamed.name = try GroupName("deep work")
        try await world.groups.update(renamed)
        world.clock.advance(by: 1_000)
        #expect(try await phase(world) == "ended")
        let ended = try #require(try await world.ended.first)
        #expect(ended.groupName == "deep work" && ended.cycle == session.cycle)
        let report = ReportBuilder(grouping: .day, timeZone: TimeZoneRules.utc, groupNames: [:]).build([ended], since: nil, until: nil)
        #expect(report.total.rounds == 3)
    }

    @Test("a schedule's cycle fits its rounds into the interval: breaks at their edges, the last round working to the interval's end")
    func scheduledCycle() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:00Z")
        let world = daemon.world
        try await daemon.schedules.insert(Schedule(name: "morning", groupId: world.work.id, from: TimeOfDay(parsing: "09:00")!,
                                                   to: TimeOfDay(parsing: "10:00")!, weekdays: Set(Weekday.allCases),
                                                   cycle: .fixed(work: 25 * 60, breakLength: 5 * 60)))
        var seen: [String] = []
        while true {
            let step = try await daemon.step.execute()
            let clock = Timestamp.format(world.clock.now(), fractionDigits: 0).dropFirst(11).prefix(5)
            let current = try await world.sessions.current()
            seen.append("\(clock) \(current?.cyclePhase.map { "\($0.kind.rawValue) \($0.round)/\(current?.cycle?.rounds ?? 0)" } ?? "none") \(try await blockUp(world) ? "up" : "down")")
            guard let deadline = step.nextDeadline, deadline <= Timestamp.parse("2026-11-23T10:30:00Z")! else { break }
            world.clock.advance(by: deadline.timeIntervalSince(world.clock.now()))
        }
        #expect(seen == ["08:59 none down", "09:00 work 1/2 up", "09:25 break 1/2 down", "09:30 work 2/2 up", "10:00 none down"])
        let ended = try #require(try await world.ended.first)
        #expect(ended.focused(at: world.clock.now()) == 55 * 60 && ended.outcome == .completed)
    }

    @Test("a cycle given a length too fits as many rounds as begin in it")
    func fitted() {
        let cycle = Cycle.fixed(work: 50 * 60, breakLength: 10 * 60, longBreak: 30 * 60)
        #expect(cycle.fitted(to: 8 * 3_600).rounds == 8, "9 to 17: eight rounds, the long break after the fourth")
        #expect(cycle.fitted(to: 50 * 60).rounds == 1)
        #expect(Cycle.flow().fitted(to: 3_600) == .flow())
    }
}
