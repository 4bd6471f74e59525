import Domain
import Foundation
import Testing

@Suite("Ending a session: stop and exact completion")
struct EndingSessionTests {
    /// Still running as it was: the clocks' reading a look records every
    /// 10 minutes (`Session.lastReading`) aside.
    static func leftAlone(_ current: Session?, _ session: Session) -> Bool {
        guard let current else { return false }
        return current.id == session.id && current.isActive && current.plannedEnd == session.plannedEnd && current.breaks == session.breaks
            && current.awayStretches == session.awayStretches && current.endedAt == nil
    }

    @Test("a session past its planned end is completed at exactly the planned end")
    func exactCompletion() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 1_500 + 3_600 + 0.25)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.endedAt == session.plannedEnd)
        #expect(completed.outcome == .completed)
        #expect(completed.focused(at: world.clock.now()) == 1_500)
        #expect(try await world.ended == [completed])
        #expect(try await world.sessions.current() == nil)
        #expect(try await world.shieldState == nil)
        #expect(world.eventNames == ["session-started", "session-ended"])
    }

    @Test("before its planned end a session is left alone", arguments: [0.0, 1_499.999])
    func notYet(after seconds: TimeInterval) async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: seconds)
        #expect(try await world.active.reconcile().completed == nil)
        #expect(Self.leftAlone(try await world.sessions.current(), session))
        #expect(try await world.ended.isEmpty)
    }

    @Test("on the planned end itself the session completes")
    func onTheInstant() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(1_500))
        world.clock.advance(by: 1_500)
        #expect(try await world.active.reconcile().completed != nil)
    }

    @Test("an open-ended session never completes by itself")
    func openEnded() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.openEnded)
        world.clock.advance(by: 7 * 86_400)
        #expect(try await world.active.reconcile().completed == nil)
        #expect(try await world.sessions.current()?.isActive == true)
    }

    @Test("a hundred concurrent reconciles produce exactly one history entry")
    func concurrentReconciles() async throws {
        let world = try await SessionWorld()
        try await world.startWork(.duration(60))
        world.clock.advance(by: 120)
        let active = world.active
        let completions = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            for _ in 0..<100 { tasks.addTask { try await active.reconcile().completed != nil } }
            return try await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(completions == 1)
        #expect(try await world.ended.count == 1)
        #expect(world.eventNames.filter { $0 == "session-ended" }.count == 1)
    }

    @Test("an archival cut short by a crash is finished by the next reconcile, once")
    func crashRecovery() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(60))
        let ended = session.ending(at: session.plannedEnd!, outcome: .completed)
        _ = try await world.sessions.replace(session, with: ended)   // the crash: marked, not archived
        try await world.history.append(ended)                          // ...or even appended already
        world.clock.advance(by: 3_600)
        #expect(try await world.active.reconcile().completed == nil, "the ending was not this call's")
        #expect(try await world.ended == [ended])
        #expect(world.eventNames == ["session-started", "session-ended"])
        #expect(try await world.sessions.current() == nil)
        #expect(try await world.shieldState == nil)
    }

    @Test("stop ends the session now, lowers the block and records it as stopped")
    func stop() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 600)
        let stopped = try await world.stop.execute().session
        #expect(stopped.id == session.id)
        #expect(stopped.endedAt == world.clock.now())
        #expect(stopped.outcome == .stopped)
        #expect(try await world.ended == [stopped])
        #expect(try await world.shieldState == nil)
        #expect(try await world.sessions.current() == nil)
    }

    @Test("stop with nothing active says so")
    func stopNothing() async throws {
        let world = try await SessionWorld()
        let error = await #expect(throws: SessionError.notActive) { try await world.stop.execute() }
        #expect(error?.code == "session.notActive")
        #expect(error?.kind == .domain)
    }

    @Test("stop after the planned end finds the session already completed at its end")
    func stopTooLate() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(60))
        world.clock.advance(by: 90)
        await #expect(throws: SessionError.notActive) { try await world.stop.execute() }
        #expect(try await world.ended.map(\.endedAt) == [session.plannedEnd])
        #expect(try await world.ended.map(\.outcome) == [.completed])
    }

    @Test("a strict session cannot be stopped before its end; the block stays up")
    func strictStop() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(3_600), strict: true)
        world.clock.advance(by: 3_599)
        let error = await #expect(throws: SessionError.strict(until: session.plannedEnd!)) { try await world.stop.execute() }
        #expect(error?.kind == .authorization)
        #expect(Self.leftAlone(try await world.sessions.current(), session))
        #expect(try await world.shieldState?.session == session.id)
        world.clock.advance(by: 1)
        #expect(try await world.active.reconcile().completed?.outcome == .completed)
    }

    @Test("with a passcode set, a strict session is stopped or paused early only with the right one, in one attempt each")
    func strictOverride() async throws {
        let world = try await SessionWorld()
        try await world.auth.set.execute(Passcode("1234"))
        let session = try await world.startWork(.duration(3_600), strict: true)
        await #expect(throws: AuthError.passcodeRequired) { try await world.stop.execute() }
        await #expect(throws: AuthError.self) { try await world.pause.execute(passcode: Passcode("0000")) }
        #expect(try await world.sessions.current() == session)
        let paused = try await world.pause.execute(passcode: Passcode("1234")).session
        #expect(paused.isPaused && paused.plannedEnd == session.plannedEnd)
        _ = try await world.resume.execute()
        let stopped = try await world.stop.execute(passcode: Passcode("1234")).session
        #expect(stopped.outcome == .stopped)
        #expect(try await world.shieldState == nil)
        #expect(try await world.auth.audit.entries().map(\.action) == ["set-passcode", "stop", "pause", "pause", "stop"])
    }

    @Test("moving the wall clock forward does not end a strict session: the boot-time clock must agree")
    func clockTamper() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(3_600), strict: true)
        #expect(session.bootDeadline?.seconds == world.clock.bootTime()!.seconds + 3_600)
        world.clock.advance(by: 60)
        world.clock.setWallClock(to: world.clock.now().addingTimeInterval(2 * 3_600))   // the user's trick
        #expect(try await world.active.reconcile().completed == nil)
        // Refusals and status tell the real time left (59 minutes), not the
        // planned end the moved clock has already passed.
        let realEnd = world.clock.now().addingTimeInterval(3_540)
        await #expect(throws: SessionError.strict(until: realEnd)) { try await world.stop.execute() }
        await #expect(throws: SessionError.strict(until: realEnd)) { try await world.pause.execute() }
        let status = try #require(try await world.status.execute())
        #expect(status.heldByBootClock && status.remaining == 3_540 && status.elapsed == 60 && status.focused == 60)
        #expect(status.progress == 60.0 / 3_600)
        #expect(try await world.sessions.current() == session)
        world.clock.advance(by: 3_540)                                                  // real time catches up
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.endedAt == session.plannedEnd)
    }

    @Test("clocks read a moment apart do not hold a strict session: status is not 'held', the refusal names the planned end, and it ends on time")
    func clocksReadApart() async throws {
        let world = try await SessionWorld()
        let start = world.clock.now()
        let boot = try #require(world.clock.bootTime())
        // The boot-time clock was read 0.4 s after the wall clock at start.
        let session = Session(groupId: world.work.id, startedAt: start, plannedEnd: start + 600, strict: true,
                              bootDeadline: BootTimeReading(bootID: boot.bootID, seconds: boot.seconds + 600.4))
        _ = try await world.sessions.replace(nil, with: session)
        world.clock.advance(by: 100)
        let status = try #require(try await world.status.execute())
        #expect(!status.heldByBootClock && status.remaining == 500)
        await #expect(throws: SessionError.strict(until: start + 600)) { try await world.stop.execute() }
        world.clock.advance(by: 500)
        #expect(try await world.active.reconcile().completed?.endedAt == start + 600)
    }

    @Test("after a reboot the wall clock alone ends a strict session")
    func afterReboot() async throws {
        let world = try await SessionWorld()
        let start = world.clock.now()
        let session = Session(groupId: world.work.id, startedAt: start, plannedEnd: start + 600, strict: true,
                              bootDeadline: BootTimeReading(bootID: "an-earlier-boot", seconds: 999_999))
        _ = try await world.sessions.replace(nil, with: session)
        world.clock.setWallClock(to: start + 601)
        #expect(try await world.active.reconcile().completed?.endedAt == start + 600)
    }

    @Test("a late lower from an ended session does not lift the next session's block")
    func lateLower() async throws {
        let world = try await SessionWorld()
        let first = try await world.startWork(.duration(60))
        world.clock.advance(by: 60)
        let second = try await world.startWork(.duration(60))
        try await world.shield.lower(for: first.id)
        #expect(try await world.shieldState?.session == second.id)
    }
}
