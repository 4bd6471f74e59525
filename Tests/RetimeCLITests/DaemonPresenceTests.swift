@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's services in the test process, on the manual clock, with a
/// scripted presence source: what it hears of lock, idle and sleep ends up
/// in the running session as away stretches (issue 33).
@Suite("The daemon records away time from presence")
struct DaemonPresenceTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-presence-\(UUID().uuidString)").path
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let presence: ScriptedPresenceSignals

    init() { presence = ScriptedPresenceSignals(clock: clock) }

    var runtime: RuntimeContext { RuntimeContext(dataDirectory: directory, logLevel: .warning, environment: ["HOME": directory]) }

    func container() -> Container {
        var registry = DaemonRoot.registry(runtime)
        registry.register((any RetimeShared.Clock).self, value: clock)
        registry.register((any PresenceSignals).self, value: presence)
        return Container(registry)
    }

    /// Wake signals the test steps by hand: a wait returns only what the
    /// test (or the daemon's own services) posts, whatever its deadline,
    /// so the manual clock stands still while the test sends presence.
    final class SteppedWake: WakeSignals, Sendable {
        private let (stream, continuation) = AsyncStream<WakeReason>.makeStream()
        private let posted = Mutex<[WakeReason]>([])
        var followsTimeZone: Bool { true }
        /// Every reason posted so far, in order.
        var reasons: [WakeReason] { posted.withLock { $0 } }
        func post(_ reason: WakeReason) {
            posted.withLock { $0.append(reason) }
            continuation.yield(reason)
        }
        func wait(until deadline: Date?) async -> WakeReason {
            for await reason in stream { return reason }
            return .signal(SIGTERM)
        }
    }

    /// Polls `condition` until it holds, at most `attempts` times 10 ms
    /// apart. Counted in attempts, not in wall-clock time: in a full
    /// parallel run the blocking end-to-end tests can hold every thread of
    /// the pool for minutes, and a wall-clock deadline would then expire
    /// with the daemon's task never having had a turn.
    func until(attempts: Int = 6_000, _ condition: () async throws -> Bool) async rethrows -> Bool {
        for _ in 0..<attempts {
            if try await condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return try await condition()
    }

    /// The whole daemon in-process on this test's container, waking only
    /// when `wake` is posted to; stop it with `.signal(SIGTERM)`.
    func runDaemon(waking wake: SteppedWake) -> Task<Void, any Error> {
        let services = ContainerService { self.container() }
        var daemon = DaemonRunner.group(lock: DaemonLock(dataDirectory: directory), services: services, wake: wake,
                                        interrupt: { wake.post($0) }, signals: ManualSignals(), configuration: { nil })
        // A stop asked of a starved pool (the full parallel suite) may take
        // long: a bound on hanging, not on speed.
        daemon.deadline = .seconds(120)
        return Task { try await daemon.run() }
    }

    /// A two-hour session of `work` started, and the daemon running on it
    /// in-process (`runDaemon`).
    func startedUnderDaemon() async throws
        -> (started: SessionReceipt, sessions: any SessionRepository, wake: SteppedWake, running: Task<Void, any Error>) {
        let setup = container()
        _ = try await setup.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["example.com"])
        let started = try await setup.resolve(StartSessionUseCase.self).execute(SessionPlan(groupName: "work", length: .duration(7_200)))
        let wake = SteppedWake()
        return (started, try setup.resolve((any SessionRepository).self), wake, runDaemon(waking: wake))
    }

    /// What the daemon said, for a failed wait.
    func diagnosis() -> String {
        // At `warning`, this test's level: the return is a `notice` (DesktopBusReconnectTests reads it).
        let log = (try? runtime.device().daemonLog).flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? "(no log)"
        return "consumers: \(presence.consumerCount); log: \(log.suffix(2_000))"
    }

    @Test("locked from 10 to 30 minutes into a session is one away stretch from lock to unlock; idle under the threshold is none")
    func lockToUnlock() async throws {
        let (started, sessions, wake, running) = try await startedUnderDaemon()
        // No wait for the daemon to listen: it hears the state as of when it
        // does (the scripted source, as logind, tells it first), and each
        // step below waits until the daemon recorded the one before.

        clock.advance(by: 600)
        let lockedAt = clock.now()
        presence.send(.locked)
        #expect(try await until { try await sessions.current()?.openAway != nil }, "\(diagnosis())")
        clock.advance(by: 1_200)
        let unlockedAt = clock.now()
        presence.send(.present)
        #expect(try await until { try await sessions.current()?.lastAway != nil })

        // Idle for two minutes (input stopped a minute before the signal): not away.
        clock.advance(by: 300)
        presence.send(.idle, since: clock.now().addingTimeInterval(-60))
        #expect(try await until { try await sessions.current()?.openAway != nil })
        clock.advance(by: 60)
        presence.send(.present)
        #expect(try await until { try await sessions.current()?.openAway == nil })

        wake.post(.signal(SIGTERM))
        try await running.value

        let session = try #require(try await sessions.current())
        #expect(session.id == started.session.id)
        #expect(session.awayStretches == [AwayStretch(reason: .locked, start: lockedAt, end: unlockedAt, threshold: 300)])
        #expect(session.focused(at: clock.now()) == 2_160 - 1_200)
        #expect(session.isActive && !session.isPaused, "the block stays up while away")
    }

    @Test("a source lost while followed (its bus restarted) is followed again after the backoff's first second; the loss said once")
    func sourceLostAndBack() async throws {
        let (_, sessions, wake, running) = try await startedUnderDaemon()
        #expect(await until { presence.consumerCount == 1 }, "\(diagnosis())")
        presence.lose()
        // `ReconnectBackoff`'s first wait is a real second: counted in attempts, as `until` is.
        #expect(await until { presence.consumerCount == 1 }, "followed again: \(diagnosis())")
        presence.send(.locked)
        #expect(try await until { try await sessions.current()?.openAway?.reason == .locked }, "\(diagnosis())")
        wake.post(.signal(SIGTERM))
        try await running.value
        // At `warning`, this test's level: the return is a `notice` (DesktopBusReconnectTests reads it).
        let log = (try? runtime.device().daemonLog).flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        #expect(log.components(separatedBy: "away time: lost its source").count == 2, "\(log)")
    }

    @Test("a return from sleep wakes the scheduler as a clock change, and the sleep is recorded")
    func returnFromSleep() async throws {
        let (_, sessions, wake, running) = try await startedUnderDaemon()
        // No wait for the daemon to listen: it hears the state as of when it
        // does (the scripted source, as logind, tells it first), and each
        // step below waits until the daemon recorded the one before.
        clock.advance(by: 600)
        presence.send(.asleep)
        #expect(try await until { try await sessions.current()?.openAway?.reason == .asleep }, "\(diagnosis())")
        clock.suspend(for: 3_600)
        presence.send(.present)
        #expect(try await until { try await sessions.current()?.openAway == nil })
        #expect(await until { wake.reasons.contains(.clockChanged) }, "the scheduler looks again after the resume")
        wake.post(.signal(SIGTERM))
        try await running.value
        let session = try #require(try await sessions.current())
        #expect(session.awayStretches.count == 1, "heard once, not again from the clocks")
        #expect(session.asleepTime(at: clock.now()) == 3_600)
        #expect(session.focused(at: clock.now()) == 600)
    }
}
