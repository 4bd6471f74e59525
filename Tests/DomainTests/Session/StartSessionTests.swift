import Domain
import Foundation
import Testing

@Suite("Starting a session")
struct StartSessionTests {
    @Test("start records the session and raises the group's block before returning")
    func start() async throws {
        let world = try await SessionWorld()
        let session = try await world.start.execute(SessionPlan(
            groupName: "WORK", length: .duration(1_500), tags: ["writing", " writing "], note: "  ch. 3 ")).session
        #expect(try await world.sessions.current() == session)
        #expect(try await world.shieldState == ShieldState(session: session.id, targets: world.work.targets))
        #expect(session.groupId == world.work.id)
        #expect(session.startedAt == world.clock.now())
        #expect(session.plannedEnd == world.clock.now().addingTimeInterval(1_500))
        #expect(session.outcome == .active && session.origin == .manual && !session.strict)
        #expect(session.tags == ["writing"])
        #expect(session.note == "ch. 3")
        #expect(world.eventNames == ["session-started"])
    }

    @Test("--until sets the planned end to that instant")
    func until() async throws {
        let world = try await SessionWorld()
        let end = world.clock.now().addingTimeInterval(3_600)
        #expect(try await world.startWork(.until(end)).plannedEnd == end)
    }

    @Test("lengths from 1 s to 24 h are accepted", arguments: [1.0, 60, 86_400])
    func acceptedLengths(seconds: TimeInterval) async throws {
        let world = try await SessionWorld()
        #expect(try await world.startWork(.duration(seconds)).plannedEnd == world.clock.now().addingTimeInterval(seconds))
    }

    @Test("lengths outside 1 s to 24 h are refused, and nothing is recorded", arguments: [0.0, 0.5, -60, 86_401, .infinity, .nan])
    func refusedLengths(seconds: TimeInterval) async throws {
        let world = try await SessionWorld()
        let error = await #expect(throws: SessionError.self) { try await world.startWork(.duration(seconds)) }
        #expect(error?.code == "session.invalidDuration")
        #expect(error?.kind == .invalidInput)
        #expect(try await world.sessions.current() == nil)
        #expect(world.spy.operations.isEmpty)
    }

    @Test("an end in the past is refused")
    func untilInThePast() async throws {
        let world = try await SessionWorld()
        await #expect(throws: SessionError.self) { try await world.startWork(.until(world.clock.now())) }
    }

    @Test("a strict session needs an end")
    func strictNeedsEnd() async throws {
        let world = try await SessionWorld()
        await #expect(throws: SessionError.strictNeedsEnd) { try await world.startWork(.openEnded, strict: true) }
        #expect(try await world.startWork(.duration(60), strict: true).strict)
    }

    @Test("an unknown group is refused")
    func unknownGroup() async throws {
        let world = try await SessionWorld()
        let error = await #expect(throws: SessionError.groupNotFound(name: "play")) {
            try await world.start.execute(SessionPlan(groupName: "play"))
        }
        #expect(error?.code == "group.notFound")
    }

    @Test("bad tags and notes are refused")
    func badTagsAndNotes() async throws {
        let world = try await SessionWorld()
        await #expect(throws: SessionError.self) { try await world.start.execute(SessionPlan(groupName: "work", tags: [" "])) }
        await #expect(throws: SessionError.self) { try await world.start.execute(SessionPlan(groupName: "work", tags: ["a\u{0}"])) }
        await #expect(throws: SessionError.self) {
            try await world.start.execute(SessionPlan(groupName: "work", note: String(repeating: "n", count: 1_001)))
        }
    }

    @Test("only one session is active: a second start is refused and changes nothing")
    func oneActive() async throws {
        let world = try await SessionWorld()
        let first = try await world.startWork()
        await #expect(throws: SessionError.alreadyActive(first.id, until: first.plannedEnd)) { try await world.startWork() }
        #expect(try await world.sessions.current() == first)
        #expect(try await world.shieldState?.session == first.id)
    }

    @Test("of twenty concurrent starts exactly one succeeds")
    func concurrentStarts() async throws {
        let world = try await SessionWorld()
        let start = world.start
        let results = await withTaskGroup(of: Bool.self) { tasks in
            for _ in 0..<20 {
                tasks.addTask { (try? await start.execute(SessionPlan(groupName: "work", length: .duration(60)))) != nil }
            }
            return await tasks.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
    }

    @Test("an expired session does not block a new start: it is completed first")
    func expiredDoesNotBlock() async throws {
        let world = try await SessionWorld()
        let first = try await world.startWork(.duration(60))
        world.clock.advance(by: 61)
        let second = try await world.startWork()
        #expect(try await world.ended.map(\.id) == [first.id])
        #expect(try await world.sessions.current()?.id == second.id)
    }

    @Test("if the shield cannot be raised the session is withdrawn and the error says why")
    func shieldFailure() async throws {
        let world = try await SessionWorld(shield: FailingShield())
        let error = await #expect(throws: SessionError.shieldFailed("permission denied")) { try await world.startWork() }
        #expect(error?.kind == .storage)
        #expect(try await world.sessions.current() == nil)
        #expect(world.eventNames.isEmpty)
    }

    @Test("a strict --until TIME more than 12 hours ahead is refused (a time that passed today means tomorrow); a date, or 12 hours, is taken")
    func strictTimeOfDayHorizon() async throws {
        let world = try await SessionWorld()
        let now = world.clock.now()
        let far = now.addingTimeInterval(23 * 3_600 + 38 * 60)
        await #expect(throws: SessionError.strictUntilFarAhead(far)) {
            try await world.start.execute(SessionPlan(groupName: "work", length: .untilTimeOfDay(far), strict: true))
        }
        #expect(SessionError.strictUntilFarAhead(far).kind == .invalidInput)
        #expect(try await world.sessions.current() == nil)
        let open = try await world.start.execute(SessionPlan(groupName: "work", length: .untilTimeOfDay(far))).session
        #expect(open.plannedEnd == far, "not strict: taken")
        _ = try await world.stop.execute()
        let dated = try await world.start.execute(SessionPlan(groupName: "work", length: .until(far), strict: true)).session
        #expect(dated.plannedEnd == far, "a date says it is meant")
        world.clock.advance(by: 23 * 3_600 + 38 * 60)
        _ = try await world.status.execute()
        let twelve = now.addingTimeInterval(2 * 86_400)
        let near = try await world.start.execute(SessionPlan(groupName: "work", length: .untilTimeOfDay(world.clock.now() + 12 * 3_600), strict: true)).session
        #expect(near.plannedEnd != nil && near.plannedEnd! < twelve)
    }
}
