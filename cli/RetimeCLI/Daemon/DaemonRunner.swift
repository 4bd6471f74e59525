import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime daemon run`: the daemon's services, started in order (the
/// single-instance lock, the services built from its root, the watchers of
/// signals, data and time zone, the scheduler) and stopped in reverse when
/// a signal ends it (docs/architecture.md).
struct DaemonRunner {
    let runtime: RuntimeContext

    func run() async throws {
        let runtime = runtime
        let mailbox = try WakeMailbox()
        let zone = try DirectoryWatcher.timeZone()
        let watchers: [any WakeWatcher] = [SignalWatcher(), try DirectoryWatcher.data(directory: runtime.layout.store), zone]
        let wake = try WakeSource(mailbox: mailbox, followsTimeZone: zone.isWatching)
        let services = DaemonContainer { try DaemonRoot.container(runtime) }
        try await DaemonRunner.group(lock: DaemonLock(dataDirectory: runtime.dataDirectory), services: services,
                                     watchers: watchers.map { WatcherService(watcher: $0, mailbox: mailbox) }, wake: wake,
                                     configuration: { try? runtime.store.stamp(of: StoreSettings.suite) }).run()
    }

    /// The daemon as a group of services; the same for a test, with its
    /// own watchers (or none), wake signals and a container on the manual
    /// clock.
    static func group(lock: DaemonLock, services: DaemonContainer, watchers: [any DaemonService] = [], wake: any WakeSignals,
                      configuration: @escaping @Sendable () -> AnyHashable?) -> DaemonServiceGroup {
        DaemonServiceGroup(services: [
            DaemonLockService {
                let held = try lock.acquire()
                return { held.release() }
            },
            services,
        ] + watchers + [
            SchedulerService(wake: wake, services: services, configuration: configuration, forgetTimeZone: { SystemTimeZone.forget() }),
        ])
    }
}
