import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// The session slot, counting how often it is read: every reconcile reads it
/// once first, so the reads bound how often reconcile ran.
final class CountingSessions: SessionRepository {
    let inner = InMemorySessionRepository()
    private let counts = Mutex((reads: 0, swaps: 0))
    var reads: Int { counts.withLock { $0.reads } }

    func current() async throws -> Session? {
        counts.withLock { $0.reads += 1 }
        return try await inner.current()
    }

    func replace(_ expected: Session?, with new: Session?) async throws -> Bool {
        counts.withLock { $0.swaps += 1 }
        return try await inner.replace(expected, with: new)
    }
}

/// A shield counting what it is asked: for the system shield each is a
/// conversation with the service.
final class CountingShield: Shield {
    let inner = InMemoryShield()
    private let counts = Mutex([String: Int]())
    var identity: String { inner.identity }
    /// Every request, by name.
    var asked: [String: Int] { counts.withLock { $0 } }
    var total: Int { asked.values.reduce(0, +) }

    private func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    func raise(_ targets: [Target], for session: SessionID) async throws { count("raise"); try await inner.raise(targets, for: session) }
    func lower(for session: SessionID) async throws { count("lower"); try await inner.lower(for: session) }
    func state() async throws -> ShieldState? { count("state"); return try await inner.state() }
    func reach(askingAboutApps: Bool) async -> ShieldReach { count("reach"); return await inner.reach(askingAboutApps: askingAboutApps) }
}

/// How often one command or one daemon pass reads the session and asks the
/// shield (issue 30: the active session has one owner, which reconciles
/// once). Before: a pass starting an interval read the session 3 times (5
/// for a strict one, with or without a session in its way) and reconciled 2
/// or 3 times; `stop` and `status` read it twice, and `status` asked the
/// shield for its block twice; `doctor`'s use case read it 3 times (its
/// blocks check, its shield test and the test's use case), and `import`
/// twice (the root's reconcile, then the use case) (docs/performance.md).
@Suite("The active session is read once per command or pass")
struct ActiveSessionCountTests {
    let world: SessionWorld
    let sessions = CountingSessions()
    let shield = CountingShield()

    init() async throws {
        world = try await SessionWorld()
    }

    var lookup: GroupRepositoryLookup { GroupRepositoryLookup(groups: world.groups) }
    var active: ActiveSession {
        ActiveSession(sessions: sessions, groups: lookup, history: world.history, shields: FixedShieldDirectory(shield),
                      clock: world.clock, devices: FixedDevices(this: "this-device"), events: world.events, logger: Logger(label: "t", handler: world.logs))
    }
    var start: StartSessionUseCase {
        StartSessionUseCase(sessions: sessions, groups: lookup, shields: FixedShieldDirectory(shield), clock: world.clock,
                            events: world.events, active: active, dataLock: InMemoryDataLock())
    }
    var stop: StopSessionUseCase {
        StopSessionUseCase(sessions: sessions, groups: lookup, history: world.history, shields: FixedShieldDirectory(shield),
                           events: world.events, active: active, override: world.auth.override)
    }
    /// No daemon runs.
    struct NoDaemon: DaemonPresence {
        func running() -> RunningDaemon? { nil }
    }

    /// Every target held by a layer, reached by no path.
    struct Blocked: ShieldInspector {
        func check(_ targets: [Target]) async -> [TargetCheck] {
            targets.map { TargetCheck(target: $0, layers: [LayerCheck(layer: "memory", blocked: true, detail: "held")]) }
        }
    }

    var test: TestShieldUseCase { TestShieldUseCase(sessions: sessions, groups: lookup, inspector: Blocked()) }
    var status: SessionStatusUseCase {
        SessionStatusUseCase(sessions: sessions, active: active, groups: lookup, shields: FixedShieldDirectory(shield))
    }

    /// Reads and shield requests made by `work` alone.
    func measure(_ work: () async throws -> Void) async throws -> (reads: Int, asked: [String: Int]) {
        let reads = sessions.reads, asked = shield.asked
        try await work()
        return (sessions.reads - reads, shield.asked.merging(asked) { $0 - $1 }.filter { $0.value != 0 })
    }

    /// The pass that starts a 09:00 interval, measured; `inTheWay`: a manual
    /// session runs when it comes.
    func pass(strict: Bool, inTheWay: Bool = false) async throws -> (reads: Int, asked: [String: Int]) {
        world.clock.setWallClock(to: Timestamp.parse("2026-11-23T08:59:59Z")!)
        if inTheWay { _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600))) }
        let schedules = InMemoryScheduleRepository()
        try await schedules.insert(Schedule(name: "work", groupId: world.work.id, from: TimeOfDay(parsing: "09:00")!,
                                            to: TimeOfDay(parsing: "10:00")!, weekdays: Set(Weekday.allCases), strict: strict))
        let step = RunDueEventsUseCase(schedules: schedules, ledger: InMemoryIntervalLedger(),
                                       calendar: IntervalCalendar(timeZone: .utc), clock: world.clock, events: world.events,
                                       logger: Logger(label: "t", handler: world.logs), active: active, start: start, stop: stop)
        _ = try await step.execute()
        world.clock.advance(by: 1)
        var handled: [DaemonStep.Handled.Action] = []
        let counts = try await measure { handled = try await step.execute().handled.map(\.action) }
        #expect(handled == [.sessionStarted])
        #expect(try await sessions.inner.current()?.origin == .schedule("work"))
        return counts
    }

    @Test("a daemon pass that starts an interval's session reads the session once (one reconcile) and asks the shield to raise")
    func intervalStart() async throws {
        let counts = try await pass(strict: false)
        #expect(counts.reads == 1, "\(counts)")
        // `reach` is the receipt's: the system shield answers it from the raise.
        // `state`: with the slot empty, the pass looks for a block a session
        // stopped on another device left up on this machine (daemon.md).
        #expect(counts.asked == ["state": 1, "raise": 1, "reach": 1], "\(counts)")
    }

    @Test("a strict interval's start reconciles once too")
    func strictIntervalStart() async throws {
        let counts = try await pass(strict: true)
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1, "raise": 1, "reach": 1], "\(counts)")
    }

    @Test("a strict interval's start that ends a session in its way reads the session once and asks for the block once")
    func strictIntervalPreempts() async throws {
        let counts = try await pass(strict: true, inTheWay: true)
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1, "lower": 1, "raise": 1, "reach": 1], "\(counts)")
        #expect(try await world.history.sessions(matching: .all).map(\.outcome) == [.stopped])
    }

    @Test("start reads the session once, to reconcile, and asks the shield to raise and what it reaches")
    func startOnce() async throws {
        let counts = try await measure { _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600))) }
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["raise": 1, "reach": 1], "\(counts)")
    }

    @Test("stop reads the session once and asks the shield for its block once, then lowers it")
    func stopOnce() async throws {
        _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600)))
        let counts = try await measure { _ = try await stop.execute() }
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1, "lower": 1], "\(counts)")
        #expect(try await sessions.inner.current() == nil)
    }

    @Test("status reads the session once and asks the shield for its block once")
    func statusOnce() async throws {
        _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600)))
        var released: Bool?
        let counts = try await measure { released = try await status.execute()?.blockReleased }
        #expect(released == false)
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1], "\(counts)")
    }

    /// An inspector of the running session (as the shield's access is),
    /// keeping what the doctor handed it.
    final class HandedSession: SessionHealthInspector {
        private let handed = Mutex<[Session?]>([])
        var sessions: [Session?] { handed.withLock { $0 } }

        func inspect(repairing: Bool, running: Session?) async -> [HealthCheck] {
            handed.withLock { $0.append(running) }
            return [HealthCheck(name: "session shield", status: .ok, detail: "handed")]
        }
    }

    /// An inspector that needs nothing of the session.
    struct Files: HealthInspector {
        func inspect(repairing: Bool) async -> [HealthCheck] { [HealthCheck(name: "files", status: .ok, detail: "fine")] }
    }

    /// Before, the shield's access inspector read the slot itself: doctor
    /// read it twice (`CompositionRootTests.doctorReadsTheSessionOnce`
    /// counts the CLI's real doctor).
    @Test("doctor reads the session once for its session inspectors, its blocks check and its shield test, and asks the shield for the block once")
    func doctorOnce() async throws {
        let running = try await start.execute(SessionPlan(groupName: "work", length: .duration(600))).session
        let inspectors = (HandedSession(), HandedSession())
        let doctor = DoctorUseCase(inspections: [.inspector(Files()), .session(inspectors.0), .inspector(Files()), .session(inspectors.1)],
                                   daemon: NoDaemon(), blocks: CheckBlocksUseCase(groups: lookup, shields: FixedShieldDirectory(shield)),
                                   test: test, sessions: sessions)
        var checks: [HealthCheck] = []
        let counts = try await measure { checks = await doctor.execute(repairing: false) }
        #expect(checks.map(\.name) == ["files", "session shield", "files", "session shield", "daemon", "blocks", "shield test"], "\(checks)")
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1], "\(counts)")
        #expect(inspectors.0.sessions.map { $0?.id } == [running.id] && inspectors.1.sessions.map { $0?.id } == [running.id])
    }

    @Test("doctor with no session inspector still reads the session once")
    func doctorOnceWithoutSessionInspectors() async throws {
        _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600)))
        let doctor = DoctorUseCase(inspections: [], daemon: NoDaemon(), blocks: CheckBlocksUseCase(groups: lookup, shields: FixedShieldDirectory(shield)),
                                   test: test, sessions: sessions)
        var checks: [HealthCheck] = []
        let counts = try await measure { checks = await doctor.execute(repairing: false) }
        #expect(checks.map(\.name) == ["daemon", "blocks", "shield test"], "\(checks)")
        #expect(counts.reads == 1, "\(counts)")
    }

    @Test("shield test, without targets, reads the session once")
    func shieldTestOnce() async throws {
        _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600)))
        var checks: [TargetCheck] = []
        let counts = try await measure { checks = try await test.execute([]) }
        #expect(checks.map(\.target.description) == ["slack.com", "app:mail"])
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked.isEmpty, "\(counts)")
    }

    @Test("daemon status reads the session once for what comes next")
    func outlookOnce() async throws {
        _ = try await start.execute(SessionPlan(groupName: "work", length: .duration(600)))
        let upcoming = UpcomingEventsUseCase(schedules: InMemoryScheduleRepository(), calendar: IntervalCalendar(timeZone: .utc), clock: world.clock)
        let outlook = DaemonOutlookUseCase(daemon: NoDaemon(), sessions: sessions, upcoming: upcoming, clock: world.clock)
        var next: DaemonOutlookUseCase.DueWork?
        let counts = try await measure { next = await outlook.execute().next }
        #expect(next?.what == .endSession)
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked.isEmpty, "\(counts)")
    }

    @Test("import reads the session once: the reconcile it runs in the data lock, which no root runs before it")
    func importOnce() async throws {
        let running = try await start.execute(SessionPlan(groupName: "work", length: .duration(600))).session
        let importer = ImportHistoryUseCase(history: world.history, directory: GroupRepositoryImportDirectory(groups: world.groups, clock: world.clock),
                                            active: active, dataLock: InMemoryDataLock())
        let record = ImportBatch.Record(session: Fixtures.endedSession(startingAt: 0), groupName: "work", line: 1)
        let clash = ImportBatch.Record(session: running, groupName: "work", line: 2)
        var summary: ImportSummary?
        let counts = try await measure {
            summary = try await importer.execute(from: FixedSource(batch: ImportBatch(records: [record, clash])), path: "-")
        }
        #expect(summary?.imported == 1)
        #expect(summary?.problems.map(\.line) == [2], "the session in progress is still refused")
        #expect(counts.reads == 1, "\(counts)")
        #expect(counts.asked == ["state": 1], "\(counts)")
    }
}
