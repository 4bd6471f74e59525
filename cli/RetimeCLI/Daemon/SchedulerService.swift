import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's work: a pass over what is due, then a sleep until the next
/// deadline or until something else wakes it (`WakeSignals`: the clock,
/// and what the watcher services post: the data, the time zone, signals). TERM and INT
/// end it after the pass in hand; HUP, a changed configuration and a
/// changed time zone build the services again. Everything it waits on and
/// reads the time from is injected: a test runs it on the manual clock.
struct SchedulerService: DaemonService {
    let name = "scheduler"
    let wake: any WakeSignals
    let services: DaemonContainer
    /// The configuration's version: when it changes, services are rebuilt so
    /// hooks, notifications and the log level follow it as the shield does.
    let configuration: @Sendable () -> AnyHashable?
    /// How long to wait before looking again after a pass that failed.
    var retryAfter: TimeInterval = 60
    /// Forgets the local time zone read so far (the system's changed).
    var forgetTimeZone: @Sendable () -> Void = {}

    func start() async throws {
        var configured = configuration()
        var logger = try services.resolve(Logger.self)
        func rebuild() async throws {
            try await services.rebuild()
            configured = configuration()
            logger = try services.resolve(Logger.self)
        }
        logger.notice("daemon started", metadata: ["pid": "\(getpid())"])
        if !wake.followsTimeZone { logger.warning("cannot watch the system's time-zone files; restart the daemon after changing the zone") }
        // A block left up by a crash, with no session to own it, comes down now.
        do { try await services.resolve(RefreshShieldUseCase.self).execute() } catch {
            logger.error("cannot bring the block in line with the session: \(error)")
        }
        while true {
            let deadline = await pass(logger)
            logger.debug("sleeping", metadata: ["until": "\(deadline.map { Timestamp.format($0) } ?? "nothing is due")"])
            switch await wake.wait(until: deadline) {
            case .signal(SIGHUP):
                logger.notice("reloading the configuration")
                try await rebuild()
            case .signal(let number):
                logger.notice("stopping", metadata: ["signal": "\(number)"])
                return
            case .clockChanged:
                logger.notice("the wall clock changed; looking again")
            case .timeZoneChanged:
                // The zone read first is kept; forget it, and build the
                // services again so the schedules' calendar (and with it
                // every interval's instants) follows the new zone.
                forgetTimeZone()
                try await rebuild()
                let zone = (try? services.resolve(IntervalCalendar.self).timeZone.identifier) ?? "?"
                logger.notice("the time zone changed; schedules follow it", metadata: ["zone": "\(zone)"])
            case .dataChanged where configuration() != configured:
                try await rebuild()
                logger.notice("the configuration changed; services rebuilt")
            case .deadline, .dataChanged:
                continue
            }
        }
    }

    func stop() async {}

    /// Runs what is due; returns when to look again (nil: nothing is due).
    private func pass(_ logger: Logger) async -> Date? {
        do {
            // What the pass handled was recorded and logged as it happened
            // (`SessionEventPublisher`).
            return try await services.resolve(RunDueEventsUseCase.self).execute().nextDeadline
        } catch {
            // Unreadable data (say, a damaged file) must not kill the
            // daemon: say so, and look again when the data changes
            // (`doctor --repair`) or in a minute.
            logger.error("a pass failed: \(error)")
            let now = (try? services.resolve((any RetimeShared.Clock).self).now()) ?? Date()
            return now.addingTimeInterval(retryAfter)
        }
    }
}
