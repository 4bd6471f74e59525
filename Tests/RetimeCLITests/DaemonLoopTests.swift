@testable import RetimeCLI
import Adapters
import Domain
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The whole daemon (its lock, its services, the scheduler's loop) run in
/// the test process on the manual clock with scripted wake signals: what
/// the end-to-end suite checks with real processes and real time, here in
/// milliseconds and to the nanosecond.
@Suite("The daemon's services on the manual clock")
struct DaemonLoopTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-daemon-\(UUID().uuidString)").path
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))

    var runtime: RuntimeContext { RuntimeContext(dataDirectory: directory, logLevel: .critical, environment: ["HOME": directory]) }

    /// The daemon's root with the manual clock in place of the system's.
    func container() -> Container {
        var registry = DaemonRoot.registry(runtime)
        registry.register((any RetimeShared.Clock).self, value: clock)
        return Container(registry)
    }

    func daemon(_ wake: ScriptedWakeSignals, _ services: ContainerService, configuration: @escaping @Sendable () -> AnyHashable? = { nil })
        -> ServiceGroup {
        var group = DaemonRunner.group(lock: DaemonLock(dataDirectory: directory), services: services, wake: wake, interrupt: { wake.post($0) },
                                       signals: ManualSignals(), configuration: configuration)
        // A stop asked of a starved pool (the full parallel suite) may take
        // long: a bound on hanging, not on speed (as DaemonPresenceTests).
        group.deadline = .seconds(120)
        return group
    }

    @Test("a session ends at its planned end to the nanosecond; with nothing due the daemon sleeps without a deadline; TERM stops it")
    func sessionEndsOnTime() async throws {
        let setup = container()
        _ = try await setup.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["example.com"])
        let started = try await setup.resolve(StartSessionUseCase.self).execute(SessionPlan(groupName: "work", length: .duration(1_500)))
        let plannedEnd = try #require(started.session.plannedEnd)

        let wake = ScriptedWakeSignals(clock: clock)
        let services = ContainerService { self.container() }
        try await daemon(wake, services).run()

        #expect(wake.deadlines == [plannedEnd, nil])
        let ended = try await setup.resolve((any SessionHistory).self).sessions(matching: .all)
        #expect(ended.map(\.id) == [started.session.id])
        #expect(ended.first?.endedAt == plannedEnd)
        #expect(ended.first?.outcome == .completed)
        #expect(try await setup.resolve((any SessionRepository).self).current() == nil)
        // Stopped in reverse: the services are torn down, then the lock let go.
        #expect(services.current == nil)
        #expect(DaemonLock(dataDirectory: directory).running() == nil)
    }

    @Test("a schedule's interval starts and ends its session at its instants, and the lock is held meanwhile")
    func scheduleRuns() async throws {
        let setup = container()
        _ = try await setup.resolve(CreateGroupUseCase.self).execute(name: "work", targets: ["example.com"])
        let calendar = try setup.resolve(IntervalCalendar.self)
        // An interval from an hour ahead to two hours ahead, in the zone the test runs in.
        let startAt = clock.now().addingTimeInterval(3_600), endAt = clock.now().addingTimeInterval(7_200)
        let parts = { (date: Date) in calendar.timeZone.offset(at: date) }
        let text = { (date: Date) -> String in
            let local = Int(date.timeIntervalSince1970) + parts(date)
            let seconds = ((local % 86_400) + 86_400) % 86_400
            return String(format: "%02d:%02d:%02d", seconds / 3_600, seconds / 60 % 60, seconds % 60)
        }
        _ = try await setup.resolve(AddScheduleUseCase.self).execute(.init(name: "focus", groupName: "work", from: text(startAt), to: text(endAt)))

        // The daemon runs through the interval; the script ends before the next day's.
        let wake = ScriptedWakeSignals(clock: clock, end: endAt.addingTimeInterval(3_600))
        let services = ContainerService { self.container() }
        try await daemon(wake, services).run()
        let sessions = try await setup.resolve((any SessionHistory).self).sessions(matching: .all)
        #expect(sessions.count == 1)
        #expect(sessions.first?.startedAt == startAt)
        #expect(sessions.first?.endedAt == endAt)
        #expect(Array(wake.deadlines.prefix(2)) == [startAt, endAt])
    }

    @Test("HUP, a changed configuration and a changed time zone build the services again; a data change alone does not")
    func rebuilds() async throws {
        let wake = ScriptedWakeSignals(clock: clock)
        let version = Version()
        let services = ContainerService { self.container() }
        wake.post(.signal(SIGHUP))
        wake.post(.dataChanged)
        wake.post(.timeZoneChanged)
        wake.post(.clockChanged)
        try await daemon(wake, services, configuration: { version.value }).run()
        #expect(services.builds == 3)   // start, HUP, zone

        let again = ScriptedWakeSignals(clock: clock)
        let rebuilt = ContainerService { self.container() }
        again.post(.dataChanged)
        again.post(.dataChanged) { version.value = 2 }
        try await daemon(again, rebuilt, configuration: { version.value }).run()
        #expect(rebuilt.builds == 2)   // start, then the configuration's change
    }

    @Test("watchers start after the services are built and stop before they are torn down; a real data watcher stops posting")
    func watchersInsideServices() async throws {
        let services = ContainerService { self.container() }
        let seen = Mutex<[String]>([])
        let probe = ProbeService { event in seen.withLock { $0.append("\(event) with services \(services.current != nil)") } }
        let mailbox = try WakeMailbox()
        let data = try DirectoryWatcher.data(directory: directory + "/store")
        let wake = ScriptedWakeSignals(clock: clock)
        var group = DaemonRunner.group(lock: DaemonLock(dataDirectory: directory), services: services,
                                       watchers: [probe, WatcherService(watcher: data, mailbox: mailbox)],
                                       wake: wake, interrupt: { wake.post($0) }, signals: ManualSignals(), configuration: { nil })
        // The same bound on hanging as `daemon(_:_:)`: the full parallel
        // suite's starved pool once took over 10 s to stop 'presence'.
        group.deadline = .seconds(120)
        try await group.run()
        #expect(seen.withLock { $0 } == ["start with services true", "stop with services true"])
        // The data watcher was stopped with the group: what the daemon's own
        // pass wrote was posted before that; a write now posts nothing.
        while mailbox.take() != nil {}
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/store/groups.json"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(mailbox.take() == nil)
    }

    /// What one build of the daemon's services makes for its scheduler
    /// (`DaemonWork`): the pass and what it runs (reconcile, start, stop,
    /// and stop's passcode override), the refresh at start, the shield,
    /// the events' publisher and what it feeds, the settings, and the
    /// device directory (a scheduled session records its device); 33 of
    /// the registrations. Before, `validate()` at every start and reload built
    /// all of them (285-288 factory runs; now 55). Status, doctor, reports,
    /// imports, exports and history edits are the CLI's alone.
    static let daemonBuilds: Set<String> = [
        "RetimeCLI.DaemonWork", "RetimeShared.Logger", "RetimeShared.Clock", "RetimeShared.Settings", "RetimeShared.SettingsStore", "Adapters.KeyValueStore",
        "RetimeSchedule.RunDueEventsUseCase", "RetimeSession.RefreshShieldUseCase", "RetimeSession.ActiveSession",
        "RetimeSession.StartSessionUseCase", "RetimeSession.StopSessionUseCase",
        "RetimeSchedule.IntervalCalendar", "RetimeSchedule.IntervalLedger", "RetimeSchedule.ScheduleRepository", "RetimeSession.SessionRepository",
        "RetimeGroup.GroupRepository", "RetimeSession.SessionGroupLookup", "RetimeGroup.ImportGroupDirectory", "RetimeHistory.SessionHistory", "RetimeSession.SessionArchive", "RetimeShared.DataLock",
        "RetimeCLI.ConfiguredShields", "RetimeSession.ShieldDirectory",
        "RetimeSession.SessionEventPublisher", "RetimeShared.Tracker", "RetimeSession.EventHooks", "Optional<RetimeSession.Notifier>",
        // The stop a strict interval makes asks the unlock rule (`unlock`) of a strict session.
        "RetimeSession.StrictUnlock",
        "RetimeShared.StrictOverride", "RetimeAuth.VerifyPasscodeUseCase", "RetimeAuth.AuthStateStore", "RetimeAuth.PasscodeHasher", "RetimeAuth.AuditTrail",
        "RetimeAuth.EnforcerPasscodes", "RetimeSync.DeviceDirectory",
        // Keeping this device's seen map current after each pass (docs/storage.md, "Devices").
        "RetimeSync.SyncStatusUseCase", "RetimeSync.SyncFolder",
        // What the machine says about its user (away time: PresenceService).
        "RetimeSession.PresenceSignals",
        // Which clock judges a session another device started (semantics.md,
        // "Devices you can trust": a fast clock here never ends it early).
        "RetimeSession.SessionClocks",
    ]

    @Test("the daemon builds only what its scheduler uses, at its start and at each reload")
    func buildsOnlyWhatItUses() async throws {
        let made = Mutex<[Container]>([])
        let services = ContainerService {
            let container = self.container()
            made.withLock { $0.append(container) }
            return container
        }
        let wake = ScriptedWakeSignals(clock: clock)
        wake.post(.signal(SIGHUP))
        try await daemon(wake, services).run()
        let builds = made.withLock { $0 }
        #expect(builds.count == 2)   // start, HUP
        for container in builds {
            let built = Set(container.built.services.map(\.description))
            #expect(built == Self.daemonBuilds)
        }
    }

    @Test("a second daemon on the same data is refused while the first runs, and nothing of it is started")
    func singleInstance() async throws {
        let held = try DaemonLock(dataDirectory: directory).acquire()
        defer { held.release() }
        let services = ContainerService { self.container() }
        await #expect(throws: DaemonError.self) { try await daemon(ScriptedWakeSignals(clock: clock), services).run() }
        #expect(services.builds == 0)
    }
}

/// A service that reports its start and stop.
private struct ProbeService: Service {
    let name = "probe"
    let report: @Sendable (String) -> Void
    var announcesStart: Bool { true }
    func run() async throws {
        report("start")
        ServiceLifecycle.started()
        await ServiceLifecycle.shutdownRequested()
        report("stop")
    }
}

/// A configuration version a test changes while the daemon runs.
private final class Version: @unchecked Sendable {
    var value = 1
}
