import Domain
import FoundationEssentials

/// The daemon's ear for presence (`PresenceSignals`): each change is
/// recorded in the running session as it comes (`RecordPresenceUseCase`,
/// with `away.threshold` as the build in force has it), and a return from
/// sleep wakes the scheduler as a clock change does (semantics.md,
/// "Catch-up"), and a return while a cycle's work waits for its user
/// (`cycle.waitForActivity`) wakes it at once, so the block goes up then.
/// It logs what it follows. A source that is unavailable from the start
/// ends its stream at once and this service just waits for the group's
/// stop; one that was followed and went away (logind's bus restarted) is
/// followed anew after `ReconnectBackoff`'s delays, said once when lost
/// and once when back.
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
            var backoff = ReconnectBackoff()
            var lost = false
            while !Task.isCancelled {
                var heard = false, asleep = false
                for await change in signals.changes() {
                    if !heard {
                        heard = true
                        backoff = ReconnectBackoff()
                        await Self.say(lost ? .notice : .info, "away time: follows \(await Self.source(signals))\(lost ? " again" : "")", in: services)
                        lost = false
                    }
                    let recorded = await Self.record(change, in: services)
                    if change.state == .present, asleep { interrupt(.clockChanged) }
                    // The pass ends the wait and raises the block (reconcile).
                    else if change.state == .present, recorded?.openWait != nil { interrupt(.dataChanged) }
                    asleep = change.state == .asleep
                }
                if Task.isCancelled { return }
                if heard {
                    // Its bus went away (logind's system bus restarted): said
                    // once, and followed again when it is back.
                    lost = true
                    await Self.say(.warning, "away time: lost its source; following it again when it is back", in: services)
                } else if !lost {
                    // Unavailable from the start: nothing to follow (`doctor` says why).
                    return
                }
                try? await Task.sleep(for: .seconds(backoff.next()))
            }
        }
        await ServiceLifecycle.shutdownRequested()
        listening.cancel()
        await listening.value
    }

    /// What the source follows, as its availability names it.
    private static func source(_ signals: any PresenceSignals) async -> String {
        switch await signals.availability() {
        case .available(let source): source
        case .unavailable(let reason): "nothing yet (\(reason))"
        }
    }

    private static func say(_ level: LogLevel, _ message: String, in services: ContainerService) async {
        guard let logger = try? services.container().resolve(Logger.self) else { return }
        switch level {
        case .warning: logger.warning("\(message)")
        case .notice: logger.notice("\(message)")
        default: logger.info("\(message)")
        }
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
