import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's work: a pass over what is due, then a sleep until the next
/// deadline or until something else wakes it (`WakeSignals`: the clock,
/// and what the watcher services post: the data, the time zone). Its
/// group's shutdown (TERM, INT) ends it after the pass in hand; its
/// group's reload (HUP), a changed configuration and a changed time zone
/// build the services again. It resolves nothing: the root hands it what
/// a build gives it and how to rebuild. Everything it waits on and reads
/// the time from is injected: a test runs it on the manual clock.
struct SchedulerService: Service {
    let name = "scheduler"
    let wake: any WakeSignals
    /// Wakes `wake`'s wait with a reason: how the group's shutdown and
    /// reload reach a scheduler asleep.
    let interrupt: @Sendable (WakeReason) -> Void
    /// What the services built now give the scheduler.
    let work: @Sendable () throws -> DaemonWork
    /// Tears the services down, builds them again, and gives what they give.
    let rebuild: @Sendable () async throws -> DaemonWork
    /// The configuration's version: when it changes, services are rebuilt so
    /// hooks, notifications and the log level follow it as the shield does.
    let configuration: @Sendable () -> AnyHashable?
    /// How long to wait before looking again after a pass that failed.
    var retryAfter: TimeInterval = 60
    /// Forgets the local time zone read so far (the system's changed).
    var forgetTimeZone: @Sendable () -> Void = {}
    /// Gives back what a pass (and a build before it) used and the sleep
    /// does not need (the daemon's: `IdleMemory.release`); run after every
    /// pass, before the sleep: a wake maps back only the code it runs.
    var settle: @Sendable () -> Void = {}

    func run() async throws {
        let interrupt = interrupt
        try await ServiceLifecycle.withHandlers(onShutdown: { interrupt(.signal($0 ?? SIGTERM)) },
                                                onReload: { interrupt(.signal(SIGHUP)) }) {
            try await loop()
        }
    }

    private func loop() async throws {
        var configured = configuration()
        var work = try work()
        func rebuilt() async throws {
            work = try await rebuild()
            configured = configuration()
        }
        work.logger.notice("daemon started", metadata: ["pid": "\(getpid())"])
        if !wake.followsTimeZone { work.logger.warning("cannot watch the system's time-zone files; restart the daemon after changing the zone") }
        // A block left up by a crash, with no session to own it, comes down now.
        do { try await work.refresh.execute() } catch {
            work.logger.error("cannot bring the block in line with the session: \(error)")
        }
        while true {
            let deadline = await pass(work)
            settle()
            work.logger.debug("sleeping", metadata: ["until": "\(deadline.map { Timestamp.format($0) } ?? "nothing is due")"])
            switch await wake.wait(until: deadline) {
            case .signal(SIGHUP):
                work.logger.notice("reloading the configuration")
                try await rebuilt()
            case .signal(let number):
                work.logger.notice("stopping", metadata: ["signal": "\(number)"])
                return
            case .clockChanged:
                work.logger.notice("the wall clock changed; looking again")
            case .timeZoneChanged:
                // The zone read first is kept; forget it, and build the
                // services again so the schedules' calendar (and with it
                // every interval's instants) follows the new zone.
                forgetTimeZone()
                try await rebuilt()
                work.logger.notice("the time zone changed; schedules follow it", metadata: ["zone": "\(work.calendar.timeZone.identifier)"])
            case .dataChanged where configuration() != configured:
                try await rebuilt()
                work.logger.notice("the configuration changed; services rebuilt")
            case .deadline, .dataChanged:
                continue
            }
        }
    }

    /// Records what this device has seen of the others (docs/storage.md,
    /// "Devices"); a folder that cannot be surveyed is `doctor`'s to report.
    private func recordSeen(_ work: DaemonWork) {
        do { _ = try work.sync?.execute() } catch {
            work.logger.debug("cannot record what this device has seen of the others: \(error)")
        }
    }

    /// Runs what is due; returns when to look again (nil: nothing is due).
    private func pass(_ work: DaemonWork) async -> Date? {
        do {
            // What the pass handled was recorded and logged as it happened
            // (`SessionEventPublisher`).
            let next = try await work.pass.execute().nextDeadline
            recordSeen(work)
            return next
        } catch {
            // Unreadable data (say, a damaged file) must not kill the
            // daemon: say so, and look again when the data changes
            // (`doctor --repair`) or in a minute.
            work.logger.error("a pass failed: \(error)")
            return work.clock.now().addingTimeInterval(retryAfter)
        }
    }
}
