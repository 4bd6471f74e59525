import Adapters
import Domain
import Foundation
import Testing

/// The session use cases hand back what their callers show, so that a
/// command reads nothing again (issue 20).
@Suite("Session use cases return the session with its group")
struct SessionReceiptTests {
    @Test("start returns the group's name and the targets it blocked; pause, resume and stop the name it has now")
    func receipts() async throws {
        let world = try await SessionWorld()
        let started = try await world.start.execute(SessionPlan(groupName: "WORK", length: .duration(600)))
        #expect(started.groupName == "work")
        #expect(started.targets == world.work.targets)
        #expect(try await world.sessions.current() == started.session)

        var renamed = world.work
        renamed.name = try GroupName("Deep work")
        try await world.groups.update(renamed)
        world.clock.advance(by: 60)
        let paused = try await world.pause.execute()
        #expect(paused.groupName == "Deep work")
        #expect(paused.session.isPaused)
        let resumed = try await world.resume.execute()
        #expect(resumed.groupName == "Deep work")
        #expect(resumed.targets == world.work.targets)
        let stopped = try await world.stop.execute()
        #expect(stopped.groupName == "Deep work")
        #expect(stopped.session.outcome == .stopped)
        #expect(try await world.history.sessions(matching: .all).map(\.id) == [stopped.session.id])
    }

    @Test("a session whose group was deleted stops with no group name")
    func deletedGroup() async throws {
        let world = try await SessionWorld()
        try await world.startWork()
        try await world.groups.delete(id: world.work.id)
        let stopped = try await world.stop.execute()
        #expect(stopped.groupName == nil)
    }

    @Test("with no hook listening, the end's notification carries the group's name but its targets are not read")
    func targetsOnlyForListeners() async throws {
        let world = try await SessionWorld()
        let lookup = GroupRepositoryLookup(groups: world.groups)
        let events = SessionEventPublisher(tracker: world.tracker, hooks: DeafHooks(), notifier: world.notifications, groups: lookup,
                                           logger: Logger(label: "test.events", handler: world.logs))
        let active = ActiveSession(sessions: world.sessions, groups: lookup, history: world.history, shields: world.shields,
                                   clock: world.clock, devices: FixedDevices(this: "this-device"), events: events, logger: Logger(label: "test", handler: world.logs))
        let stop = StopSessionUseCase(sessions: world.sessions, groups: lookup, history: world.history, shields: world.shields,
                                      events: events, active: active, override: world.auth.override)
        try await world.startWork()
        _ = try await stop.execute()
        let told = try #require(world.notifications.events.last)
        #expect(told.kind == .sessionEnded)
        #expect(told.groupName == "work")
        #expect(told.targets.isEmpty)
    }
}

/// Hooks with none installed: they hear no event.
private struct DeafHooks: EventHooks {
    func run(_ event: SessionEvent) {}
    func listens(to kind: SessionEvent.Kind) -> Bool { false }
}
