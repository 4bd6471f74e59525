import Adapters
import Domain
import Foundation
import Testing

@Suite("What hooks and notifications hear")
struct SessionEventTests {
    @Test("a session's life reaches the hooks with its group, targets, planned end and origin; only its end is notified")
    func sessionLife() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(1_500))
        world.clock.advance(by: 60)
        _ = try await world.pause.execute()
        world.clock.advance(by: 60)
        _ = try await world.resume.execute()
        _ = try await world.stop.execute()
        let heard = world.hooks.events
        #expect(heard.map(\.kind) == [.sessionStarted, .sessionPaused, .sessionResumed, .sessionEnded])
        #expect(heard.allSatisfy { $0.sessionId == session.id && $0.groupName == "work" && $0.plannedEnd == session.plannedEnd })
        #expect(heard.allSatisfy { $0.targets.map(\.description) == ["slack.com", "app:mail"] && $0.origin == .manual })
        #expect(heard.map(\.at) == [session.startedAt, session.startedAt + 60, session.startedAt + 120, session.startedAt + 120])
        #expect(heard.last?.outcome == .stopped && heard.dropLast().allSatisfy { $0.outcome == nil })
        #expect(world.notifications.events.map(\.kind) == [.sessionEnded])
    }

    @Test("a completed session is heard once, at its planned end, however many processes reconcile")
    func completedOnce() async throws {
        let world = try await SessionWorld()
        let session = try await world.startWork(.duration(600))
        world.clock.advance(by: 900)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try? await world.active.reconcile().completed } }
        }
        let ended = world.hooks.events.filter { $0.kind == .sessionEnded }
        #expect(ended.count == 1)
        #expect(ended.first?.at == session.plannedEnd && ended.first?.outcome == .completed)
    }

    @Test("a session whose group was deleted is still heard, with no name and no targets")
    func deletedGroup() async throws {
        let world = try await SessionWorld()
        try await world.startWork()
        try await world.groups.delete(id: world.work.id)
        _ = try await world.stop.execute()
        let ended = try #require(world.hooks.events.last)
        #expect(ended.kind == .sessionEnded && ended.groupName == nil && ended.targets.isEmpty)
    }

    @Test("the daemon's warnings and skips reach the hooks, and warnings the desktop")
    func intervalEvents() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        try await daemon.add("m", "09:00", "10:00", warn: 300)
        try await daemon.add("busy", "09:30", "09:45", warn: 60)
        _ = try await daemon.run(until: "2026-11-23T10:30:00Z")
        let heard = daemon.world.hooks.events
        #expect(heard.map(\.kind) == [.intervalWarning, .sessionStarted, .intervalWarning, .intervalSkipped,
                                      .intervalWarning, .sessionEnded])
        let startWarning = heard[0], skip = heard[3], endWarning = heard[4]
        #expect(startWarning.warning == .intervalWillStartWarning && startWarning.sessionId == nil)
        #expect(startWarning.origin == .schedule("m") && startWarning.groupName == "work")
        #expect(startWarning.plannedEnd == Timestamp.parse("2026-11-23T10:00:00Z"))
        #expect(heard[2].warning == .intervalWillStartWarning && heard[2].origin == .schedule("busy"))
        #expect(skip.origin == .schedule("busy") && skip.plannedEnd == Timestamp.parse("2026-11-23T09:45:00Z"))
        #expect(endWarning.warning == .intervalWillEndWarning && endWarning.sessionId == heard[1].sessionId)
        #expect(heard[5].outcome == .completed && heard[5].origin == .schedule("m"))
        #expect(daemon.world.notifications.events.map(\.kind) == [.intervalWarning, .intervalWarning, .intervalWarning, .sessionEnded])
    }
}
