import Adapters
import Domain
import Foundation
import Testing

/// A shield that fails mid-session leaves nothing half-done: a block it cannot
/// lift when its session ends is not forgotten (the session goes to history,
/// stays in the slot as ended, and every later command or the daemon tries
/// again), and a pause or resume it cannot carry out is withdrawn.
@Suite("A shield that fails mid-session")
struct StuckBlockTests {
    let shield = StuckShield()

    @Test("stop records the session, says the block is still up, and the next command lifts it once it can")
    func stopThenRetry() async throws {
        let world = try await SessionWorld(shield: shield)
        let session = try await world.startWork()
        shield.stuck = true
        let error = await #expect(throws: SessionError.self) { try await world.stop.execute() }
        #expect(error == .blockNotLifted("no space left on device") && error?.kind == .storage)
        #expect(try await world.ended.map(\.id) == [session.id])
        #expect(try await world.sessions.current()?.outcome == .stopped)   // kept, so the lifting is retried
        #expect(try await shield.state()?.session == session.id)

        // Still stuck: status works, says nothing runs, and warns.
        #expect(try await world.status.execute() == nil)
        #expect(world.logs.entries.contains { $0.level == .warning && $0.metadata["session"] == "\(session.id)" })
        await #expect(throws: SessionError.notActive) { try await world.stop.execute() }

        shield.stuck = false
        #expect(try await world.status.execute() == nil)
        #expect(try await shield.state() == nil)
        #expect(try await world.sessions.current() == nil)
        #expect(try await world.ended.map(\.id) == [session.id])
        #expect(world.eventNames == ["session-started", "session-ended"])
    }

    @Test("a running session whose block is down (a start killed before raising it) has it raised by the next command")
    func blockDownIsRaised() async throws {
        let world = try await SessionWorld(shield: shield)
        let session = try await world.startWork()
        try await shield.lower(for: session.id)          // as if the start had died before raising it
        shield.refusesRaise = true                        // cannot be raised yet: status still answers, and warns
        #expect(try await world.status.execute()?.session.id == session.id)
        #expect(world.logs.entries.contains { $0.level == .warning && $0.message.contains("could not be raised") })
        shield.refusesRaise = false
        _ = try await world.status.execute()
        #expect(try await shield.state()?.session == session.id)
        #expect(try await shield.state()?.targets == (try await world.groups.group(id: session.groupId))?.targets)
    }

    @Test("a start while the block is stuck fails with why, not with 'already active'; it starts once the block is lifted")
    func startWhileStuck() async throws {
        let world = try await SessionWorld(shield: shield)
        try await world.startWork()
        shield.stuck = true
        _ = try? await world.stop.execute()
        await #expect(throws: SessionError.blockNotLifted("no space left on device")) { try await world.startWork() }
        shield.stuck = false
        let next = try await world.startWork()
        #expect(try await shield.state()?.session == next.id)
    }

    @Test("an expired session is completed and recorded even when its block cannot be lifted")
    func expiredWhileStuck() async throws {
        let world = try await SessionWorld(shield: shield)
        let session = try await world.startWork(.duration(60))
        shield.stuck = true
        world.clock.advance(by: 61)
        let completed = try #require(try await world.active.reconcile().completed)
        #expect(completed.id == session.id && completed.endedAt == session.plannedEnd)
        #expect(try await world.ended == [completed])
        #expect(try await shield.state()?.session == session.id)
        shield.stuck = false
        #expect(try await world.active.reconcile().completed == nil)   // finishing another call's ending reports nothing
        #expect(try await shield.state() == nil)
        #expect(try await world.sessions.current() == nil)
    }

    @Test("a pause whose block cannot be lifted is withdrawn: the session runs on unpaused, and the error says why")
    func pauseWhileStuck() async throws {
        let world = try await SessionWorld(shield: shield)
        let session = try await world.startWork()
        shield.stuck = true
        await #expect(throws: SessionError.shieldFailed("no space left on device")) { try await world.pause.execute() }
        #expect(try await world.sessions.current() == session)
        #expect(!world.eventNames.contains("session-paused"))
        shield.stuck = false
        #expect(try await world.pause.execute().session.isPaused)
    }

    @Test("a resume whose block cannot be raised is withdrawn: the break goes on, and the error says why")
    func resumeWhileRefused() async throws {
        let world = try await SessionWorld(shield: shield)
        try await world.startWork()
        let paused = try await world.pause.execute().session
        shield.refusesRaise = true
        await #expect(throws: SessionError.shieldFailed("no space left on device")) { try await world.resume.execute() }
        #expect(try await world.sessions.current() == paused)
        shield.refusesRaise = false
        #expect(try await !world.resume.execute().session.isPaused)
    }

    @Test("the daemon completes the session on time and tries the stuck block again a minute later, not before")
    func daemonRetries() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T09:00:00Z", shield: shield)
        let session = try await daemon.world.startWork(.duration(60))
        shield.stuck = true
        daemon.world.clock.advance(by: 60)
        let ended = try await daemon.step.execute()
        #expect(ended.handled.map(\.action) == [.sessionCompleted])
        #expect(ended.nextDeadline == Timestamp.parse("2026-11-23T09:02:00Z"))
        #expect(try await shield.state()?.session == session.id)
        shield.stuck = false
        daemon.world.clock.advance(by: 60)
        let retried = try await daemon.step.execute()
        #expect(retried.handled.isEmpty && retried.nextDeadline == nil)
        #expect(try await shield.state() == nil)
    }
}
