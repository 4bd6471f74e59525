import Domain
import FoundationEssentials

/// The daemon's ear for presence (`PresenceSignals`): each change is
/// recorded in the running session as it comes (`RecordPresenceUseCase`,
/// with `away.threshold` as the build in force has it), and a return from
/// sleep wakes the scheduler as a clock change does (semantics.md,
/// "Catch-up"), and a return while a cycle's work waits for its user
/// (`cycle.waitForActivity`) wakes it at once, so the block goes up then. A source that is unavailable ends its stream at once and
/// this service just waits for the group's stop.
struct PresenceService: Service {
    let name = "presence"
    let services: ContainerService
    /// Wakes the scheduler's wait.
    let interrupt: @Sendable (WakeReason) -> Void

    func run() async throws {
        guard let signals = try DaemonRoot.work(services.container()).presence else {
            return await ServiceLifecycle.shutdownRequested()
        }
        let services = services, interrupt = interrupt
        let listening = Task {
            var asleep = false
            for await change in signals.changes() {
                let recorded = await Self.record(change, in: services)
                if change.state == .present, asleep { interrupt(.clockChanged) }
                // The pass ends the wait and raises the block (reconcile).
                else if change.state == .present, recorded?.openWait != nil { interrupt(.dataChanged) }
                asleep = change.state == .asleep
            }
        }
        await ServiceLifecycle.shutdownRequested()
        listening.cancel()
        await listening.value
    }

    /// Records one change with the services built now (they are rebuilt on
    /// reload); a failure is logged, never the end of the daemon.
    /// Returns the session as recorded (nil: none, or it failed).
    private static func record(_ change: PresenceChange, in services: ContainerService) async -> Session? {
        guard let container = try? services.container() else { return nil }
        do {
            let threshold = try container.resolve(Settings.self).awayThreshold
            return try await container.resolve(RecordPresenceUseCase.self).execute(change, threshold: threshold)
        } catch {
            (try? container.resolve(Logger.self))?.warning("cannot record a change of presence: \(error)",
                                                          metadata: ["state": "\(change.state)"])
            return nil
        }
    }
}
