import Domain
import Foundation
import Testing

@Suite("Breaks: pause and resume")
struct BreakTests {
    @Test("a break lifts the block, resume raises it with the group's current targets")
    func pauseAndResume() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 300)
        let paused = try await world.pause.execute().session
        #expect(paused.isPaused)
        #expect(try await world.shieldState == nil)

        var group = world.work
        group.add([try Target(parsing: "news.example.org")])
        try await world.groups.update(group)
        world.clock.advance(by: 120)
        let resumed = try await world.resume.execute().session
        #expect(!resumed.isPaused)
        #expect(resumed.plannedEnd == session.plannedEnd)
        #expect(try await world.shieldState == ShieldState(session: session.id, targets: group.targets))
        #expect(world.eventNames == ["session-started", "session-paused", "session-resumed"])
    }

    @Test("focused time excludes breaks; the planned end does not move")
    func focusedTime() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 300)
        _ = try await world.pause.execute()
        world.clock.advance(by: 120)
        _ = try await world.resume.execute()
        world.clock.advance(by: 100)
        let status = try #require(try await world.status.execute())
        #expect(status.elapsed == 520)
        #expect(status.focused == 400)
        #expect(status.remaining == 980)
        world.clock.advance(by: 980)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.endedAt == session.plannedEnd)
        #expect(completed.focused(at: world.clock.now()) == 1_380)
    }

    @Test("a break still open at the planned end closes at the planned end")
    func openBreakAtEnd() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 1_200)
        _ = try await world.pause.execute()
        world.clock.advance(by: 3_600)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.breaks == [Break(start: session.startedAt.addingTimeInterval(1_200), end: session.plannedEnd)])
        #expect(completed.focused(at: world.clock.now()) == 1_200)
        #expect(!completed.isPaused)
    }

    @Test("stopping during a break closes the break at the stop")
    func stopDuringBreak() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.openEnded)
        world.clock.advance(by: 60)
        _ = try await world.pause.execute()
        world.clock.advance(by: 30)
        let stopped = try await world.stop.execute().session
        #expect(stopped.breaks.last?.end == world.clock.now())
        #expect(stopped.focused(at: world.clock.now()) == 60)
        #expect(world.spy.operations.last == .lower(stopped.id))
    }

    @Test("refreshing the shield blocks the group's current targets, but not during a break or without a session")
    func refreshShield() async throws {
        let world = try await SessionWorld()
        #expect(try await world.refreshShield.execute() == nil)
        let session = try await world.startWork()
        var group = world.work
        group.add([try Target(parsing: "news.example.org")])
        try await world.groups.update(group)
        #expect(try await world.refreshShield.execute() == group.targets)
        #expect(try await world.shieldState == ShieldState(session: session.id, targets: group.targets))
        _ = try await world.pause.execute()
        #expect(try await world.refreshShield.execute() == nil)
        #expect(try await world.shieldState == nil)
    }

    @Test("refreshing lifts a block that no running session owns, as a crash can leave")
    func refreshLiftsStaleBlock() async throws {
        let world = try await SessionWorld()
        try await world.shield.raise(world.work.targets, for: SessionID())
        #expect(try await world.refreshShield.execute() == nil)
        #expect(try await world.shieldState == nil)
    }

    @Test("pausing twice, resuming unpaused, and breaks with nothing active are refused")
    func refusals() async throws {
        let world = try await SessionWorld()
        await #expect(throws: SessionError.notActive) { try await world.pause.execute() }
        await #expect(throws: SessionError.notActive) { try await world.resume.execute() }
        try await world.startWork()
        await #expect(throws: SessionError.notPaused) { try await world.resume.execute() }
        _ = try await world.pause.execute()
        await #expect(throws: SessionError.alreadyPaused) { try await world.pause.execute() }
    }

    @Test("a strict session takes no break")
    func strictBreak() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(600), strict: true)
        await #expect(throws: SessionError.strict(until: session.plannedEnd!)) { try await world.pause.execute() }
        #expect(try await world.shieldState?.session == session.id)
    }

    @Test("several breaks add up, and time before the start or after the end never counts")
    func entityArithmetic() throws {
        let start = Date(timeIntervalSince1970: 0)
        var session = Session(groupId: GroupID(), startedAt: start, plannedEnd: start.addingTimeInterval(100))
        session = try session.pausing(at: start.addingTimeInterval(10)).resuming(at: start.addingTimeInterval(20))
        session = try session.pausing(at: start.addingTimeInterval(50)).resuming(at: start.addingTimeInterval(55))
        session = try session.pausing(at: start.addingTimeInterval(90))
        let later = start.addingTimeInterval(500)
        #expect(session.elapsed(at: later) == 100)
        #expect(session.breakTime(at: later) == 25)
        #expect(session.focused(at: later) == 75)
        #expect(session.remaining(at: start.addingTimeInterval(40)) == 60)
        #expect(session.remaining(at: later) == 0)
        #expect(session.elapsed(at: start.addingTimeInterval(-10)) == 0)
    }
}
