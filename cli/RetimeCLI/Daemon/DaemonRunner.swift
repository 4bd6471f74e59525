import Adapters
import Domain
import Foundation

/// `retime daemon run`: holds the single-instance lock, then alternates a
/// pass over due work with a sleep until the next deadline, a data change, a
/// clock change, a time-zone change or a signal. TERM and INT end it after
/// the pass in hand: the lock is released and it exits 0. HUP reloads the
/// configuration.
struct DaemonRunner {
    let runtime: RuntimeContext

    func run() async throws {
        let lock = try DaemonLock(dataDirectory: runtime.dataDirectory).acquire()
        defer { lock.release() }
        let wake = try WakeSource(watching: runtime.layout.store)
        var container = try DaemonRoot.container(runtime)
        var logger = try container.resolve(Logger.self)
        // The configuration as the services were built from it: when it
        // changes (`retime config set`), they are built again, so hooks,
        // notifications and the log level follow it as the shield does.
        let configuration = { try? runtime.store.stamp(of: StoreSettings.suite) }
        var configured = configuration()
        /// The services built again, reading the configuration (and the time
        /// zone) afresh.
        func rebuild() async throws {
            await container.teardown()
            configured = configuration()
            container = try DaemonRoot.container(runtime)
            logger = try container.resolve(Logger.self)
        }
        logger.notice("daemon started", metadata: ["pid": "\(getpid())", "data": "\(runtime.dataDirectory)"])
        if !wake.followsTimeZone { logger.warning("cannot watch the system's time-zone files; restart the daemon after changing the zone") }
        // A block left up by a crash, with no session to own it, comes down now.
        do { try await container.resolve(RefreshShieldUseCase.self).execute() } catch {
            logger.error("cannot bring the block in line with the session: \(error)")
        }
        while true {
            let deadline: Date?
            do {
                let step = try await container.resolve(RunDueEventsUseCase.self).execute()
                for entry in step.handled {
                    logger.info("handled \(entry.action.rawValue)", metadata: [
                        "schedule": "\(entry.schedule ?? "-")", "due": "\(Timestamp.format(entry.due))",
                        "lateMs": "\(Int((entry.lateness * 1_000).rounded()))",
                    ])
                }
                deadline = step.nextDeadline
            } catch {
                // Unreadable data (say, a damaged file) must not kill the
                // daemon: say so, and look again when the data changes
                // (`doctor --repair`) or in a minute.
                logger.error("a pass failed: \(error)")
                deadline = Date().addingTimeInterval(60)
            }
            logger.debug("sleeping", metadata: ["until": "\(deadline.map { Timestamp.format($0) } ?? "nothing is due")"])
            switch await wake.wait(until: deadline) {
            case .signal(SIGHUP):
                logger.notice("reloading the configuration")
                try await rebuild()
            case .signal(let number):
                logger.notice("stopping", metadata: ["signal": "\(number)"])
                await container.teardown()
                return
            case .clockChanged:
                logger.notice("the wall clock changed; looking again")
            case .timeZoneChanged:
                // Foundation keeps the zone it read first; forget it, and
                // build the services again so the schedules' calendar (and
                // with it every interval's instants) follows the new zone.
                NSTimeZone.resetSystemTimeZone()
                try await rebuild()
                logger.notice("the time zone changed; schedules follow it", metadata: ["zone": "\(TimeZone.current.identifier)"])
            case .dataChanged where configuration() != configured:
                try await rebuild()
                logger.notice("the configuration changed; services rebuilt")
            case .deadline, .dataChanged:
                continue
            }
        }
    }
}
