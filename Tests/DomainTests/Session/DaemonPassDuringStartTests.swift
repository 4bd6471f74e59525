import Adapters
import Domain
import Foundation
import Synchronization
import Testing

/// A daemon pass that wakes while a `start` in another process has
/// recorded its session and not yet raised its block (issue 44): it waits
/// for the start under the data lock, and neither raises the block a
/// second time nor logs that it found it down.
@Suite("A daemon pass during a start")
struct DaemonPassDuringStartTests {
    /// A shield whose raises wait until `open()`: the start held between
    /// its two steps.
    final class GatedShield: Shield {
        let inner = InMemoryShield()
        private let state = Mutex((open: false, raises: 0, waiting: [CheckedContinuation<Void, Never>]()))
        var identity: String { inner.identity }
        var raises: Int { state.withLock { $0.raises } }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        func raise(_ targets: [Target], for session: SessionID) async throws {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let go = state.withLock { state in
                    state.raises += 1
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if go { continuation.resume() }
            }
            try await inner.raise(targets, for: session)
        }
        func lower(for session: SessionID) async throws { try await inner.lower(for: session) }
        func state() async throws -> ShieldState? { try await inner.state() }
        func reach(askingAboutApps: Bool) async -> ShieldReach { await inner.reach(askingAboutApps: askingAboutApps) }
    }

    @Test("the pass waits for the start's raise; the block is raised once, and nothing is logged as found down")
    func waitsForTheStart() async throws {
        let shield = GatedShield(), lock = InMemoryDataLock()
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z", shield: shield)
        let world = daemon.world
        let start = StartSessionUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), shields: world.shields,
                                        clock: world.clock, events: world.events, active: world.active, dataLock: lock)
        let starting = Task { try await start.execute(SessionPlan(groupName: "work", length: .duration(600))) }
        while shield.raises < 1 { await Task.yield() }
        let pass = RunDueEventsUseCase(schedules: daemon.schedules, ledger: daemon.ledger, calendar: daemon.calendar, clock: world.clock,
                                       events: world.events, logger: Logger(label: "t", handler: world.logs), active: world.active,
                                       start: start, stop: world.stop, dataLock: lock)
        let passing = Task { try await pass.execute() }
        // Either the pass waits for the lock, or (without it) it found the
        // block down and raises it too: then the gate opens all the same.
        while lock.waiting < 1 && shield.raises < 2 { await Task.yield() }
        shield.open()
        _ = try await starting.value
        _ = try await passing.value
        #expect(shield.raises == 1, "raised by the start alone")
        #expect(!world.logs.entries.contains { $0.message.contains("which was down") }, "\(world.logs.entries.map(\.message))")
        #expect(try await shield.state() != nil)
    }
}
