import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's composition root: the shared registration, plus logging at
/// `info` to stderr (journald-aware) and to a rotating file, the interval
/// ledger, the daemon's pass, and `DaemonWork`, the one thing its entry
/// resolves at each build.
enum DaemonRoot {
    /// Nothing is built here: the scheduler's `DaemonWork` builds what a
    /// pass needs, at start (a daemon that cannot build it says so at once,
    /// not at the first interval hours later) and at each rebuild.
    static func container(_ context: RuntimeContext) -> Container {
        Container(registry(context))
    }

    /// What the scheduler uses of `container`, built now.
    static func work(_ container: Container) throws -> DaemonWork {
        try container.resolve(DaemonWork.self)
    }

    static func registry(_ context: RuntimeContext) -> Registry {
        var registry = ServiceRegistration.shared(context)
        let stderr = StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)
        // The runner resolved this device's folder before building this
        // (`DaemonRunner.run`); a test's root without one logs where the old layout did.
        let log = RotatingFile(path: (try? context.device().daemonLog) ?? context.layout.legacyDaemonLog)
        let file = FileLogHandler(file: log, level: context.logLevel)
        registry.register(Logger.self, lifetime: .singleton, teardown: { _ in log.close() }) { _ in
            Logger(label: "retime.daemon", handler: MultiplexLogHandler([stderr, file]))
        }
        registry.register((any IntervalLedger).self, lifetime: .singleton) { StoreIntervalLedger(store: try $0.resolve()) }
        registry.register {
            RunDueEventsUseCase(schedules: try $0.resolve(), ledger: try $0.resolve(), calendar: try $0.resolve(),
                                clock: try $0.resolve(), events: try $0.resolve(),
                                logger: try $0.resolve(), active: try $0.resolve(), start: try $0.resolve(),
                                stop: try $0.resolve(), dataLock: try $0.resolve((any DataLock).self))
        }
        registry.register {
            DaemonWork(logger: try $0.resolve(), pass: try $0.resolve(), refresh: try $0.resolve(), clock: try $0.resolve(),
                       calendar: try $0.resolve(), settings: try $0.resolve(), sync: try? $0.resolve(SyncStatusUseCase.self),
                       presence: try $0.resolve((any PresenceSignals).self))
        }
        return registry
    }
}
