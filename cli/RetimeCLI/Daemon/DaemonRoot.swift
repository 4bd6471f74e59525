import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's composition root: the shared registration, plus logging at
/// `info` to stderr (journald-aware) and to a rotating file, the interval
/// ledger and the daemon's pass.
enum DaemonRoot {
    /// Validated at start: a daemon that cannot build a service must say so
    /// at once, not at the first interval hours later.
    static func container(_ context: RuntimeContext) throws -> Container {
        let container = Container(registry(context))
        try container.validate()
        return container
    }

    static func registry(_ context: RuntimeContext) -> Registry {
        var registry = ServiceRegistration.shared(context)
        let stderr = StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)
        let log = RotatingFile(path: context.layout.daemonLog)
        let file = FileLogHandler(file: log, level: context.logLevel)
        registry.register(Logger.self, lifetime: .singleton, teardown: { _ in log.close() }) { _ in
            Logger(label: "retime.daemon", handler: MultiplexLogHandler([stderr, file]))
        }
        registry.register((any IntervalLedger).self, lifetime: .singleton) { StoreIntervalLedger(store: try $0.resolve()) }
        registry.register(RunDueEventsUseCase.self) {
            RunDueEventsUseCase(schedules: try $0.resolve(), ledger: try $0.resolve(), calendar: try $0.resolve(),
                                clock: try $0.resolve(), events: try $0.resolve(),
                                logger: try $0.resolve(), reconcile: try $0.resolve(), start: try $0.resolve(),
                                stop: try $0.resolve())
        }
        return registry
    }
}
