import Adapters
import Domain
import Foundation

/// `retime daemon run`: the daemon's services, started in order (the
/// single-instance lock, the services built from its root, the scheduler)
/// and stopped in reverse when a signal ends it (docs/architecture.md).
struct DaemonRunner {
    let runtime: RuntimeContext

    func run() async throws {
        let runtime = runtime
        let lock = DaemonLock(dataDirectory: runtime.dataDirectory)
        let wake = try WakeSource(watching: runtime.layout.store)
        let services = DaemonContainer { try DaemonRoot.container(runtime) }
        try await DaemonRunner.group(lock: lock, wake: wake, services: services,
                                     configuration: { try? runtime.store.stamp(of: StoreSettings.suite) }).run()
    }

    /// The daemon as a group of services; the same for a test, with its
    /// own wake signals and a container on the manual clock.
    static func group(lock: DaemonLock, wake: any WakeSignals, services: DaemonContainer,
                      configuration: @escaping @Sendable () -> AnyHashable?) -> DaemonServiceGroup {
        DaemonServiceGroup(services: [
            DaemonLockService {
                let held = try lock.acquire()
                return { held.release() }
            },
            services,
            SchedulerService(wake: wake, services: services, configuration: configuration),
        ])
    }
}
