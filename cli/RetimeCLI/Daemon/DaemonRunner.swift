import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime daemon run`: the daemon's services, started in order (the
/// single-instance lock, the services built from its root, the watchers of
/// data and time zone, the ear for presence, the scheduler) by a `ServiceGroup`, which catches
/// TERM and INT (stop, in reverse order) and HUP (reload)
/// (docs/architecture.md, "One lifecycle").
struct DaemonRunner {
    let runtime: RuntimeContext

    func run() async throws {
        let runtime = runtime
        let mailbox = try WakeMailbox()
        let zone = try DirectoryWatcher.timeZone()
        // This device's folder first: its id, and its files moved out of the old layout.
        let device = try runtime.device()
        let watchers: [any WakeWatcher] = [try DirectoryWatcher.data(directory: device.store),
                                           try DirectoryWatcher.changeLogs(devices: runtime.layout.devices), zone]
        let wake = try WakeSource(mailbox: mailbox, followsTimeZone: zone.isWatching)
        let services = ContainerService { DaemonRoot.container(runtime) }
        #if os(Linux)
        let desktop: [any Service] = [DesktopBusService(environment: runtime.environment, store: device.store,
                                                        devices: runtime.layout.devices, services: services)]
        #else
        let desktop: [any Service] = []
        #endif
        try await DaemonRunner.group(lock: DaemonLock(path: device.daemonLock, legacyPath: runtime.layout.legacyDaemonLock),
                                     services: services,
                                     watchers: watchers.map { WatcherService(watcher: $0, mailbox: mailbox) } + desktop,
                                     wake: wake, interrupt: { mailbox.post($0) }, signals: ProcessSignals(),
                                     configuration: {
                                         // The shared settings and this machine's own.
                                         AnyHashable([runtime.store.stamp(of: StoreSettings.suite), runtime.store.stamp(of: StoreSettings.machineSuite)])
                                     },
                                     // What a pass used, given back before each sleep.
                                     settle: { _ = IdleMemory.release() }).run()
    }

    /// The daemon as a group of services; the same for a test, with its
    /// own watchers (or none), wake signals, signal source and a container
    /// on the manual clock.
    static func group(lock: DaemonLock, services: ContainerService, watchers: [any Service] = [], wake: any WakeSignals,
                      interrupt: @escaping @Sendable (WakeReason) -> Void, signals: any SignalSource,
                      configuration: @escaping @Sendable () -> AnyHashable?,
                      settle: @escaping @Sendable () -> Void = {}) -> ServiceGroup {
        let lockService = HoldingService(name: "lock") {
            let held = try lock.acquire()
            return { held.release() }
        }
        let scheduler = SchedulerService(wake: wake, interrupt: interrupt, work: { try DaemonRoot.work(services.container()) },
                                         rebuild: {
                                             try await services.rebuild()
                                             return try DaemonRoot.work(services.container())
                                         },
                                         configuration: configuration, forgetTimeZone: { SystemTimeZone.forget() },
                                         settle: settle)
        let presence = PresenceService(services: services, interrupt: interrupt)
        return ServiceGroup(services: [lockService, services] + watchers + [presence, scheduler], signals: signals)
    }
}
