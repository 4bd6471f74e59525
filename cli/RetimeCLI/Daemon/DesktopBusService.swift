#if os(Linux)
import Adapters
import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's name on the user's session bus, `dev.retime.Retime1`
/// (docs/desktop.md, "D-Bus"): its properties are what `status` says, a
/// PropertiesChanged follows every change of state (it waits on the data
/// folder as `status --follow` does, and on the phase's and session's
/// ends), and its methods run the commands' use cases with their rules.
/// With no session bus it logs one line and waits for the daemon's stop.
struct DesktopBusService: Service {
    let name = "desktop bus"
    let environment: [String: String]
    /// This device's store and every device's change logs (what `DataFollowSignals` watches).
    let store: String
    let devices: String
    let services: ContainerService

    func run() async throws {
        guard let bus = DesktopBusSession.address(environment) else {
            log(.info, "no session bus ($DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus): no D-Bus name")
            await ServiceLifecycle.shutdownRequested()
            return
        }
        let mailbox = try WakeMailbox()
        let services = services
        let name: RetimeBusName
        do {
            name = try RetimeBusName(environment: environment) { call in
                let failure = await Self.run(call, services: services)
                // The state it changed, published now rather than at the watcher's word.
                mailbox.post(.dataChanged)
                return failure
            }
        } catch {
            log(.warning, "cannot own \(RetimeBusName.name) on the session bus at \(bus): \(error)")
            await ServiceLifecycle.shutdownRequested()
            return
        }
        let watchers: [any WakeWatcher] = [try DirectoryWatcher.data(directory: store), try DirectoryWatcher.changeLogs(devices: devices)]
        for watcher in watchers { try watcher.start(posting: mailbox) }
        let wake = try WakeSource(mailbox: mailbox, followsTimeZone: false)
        log(.info, "owns \(RetimeBusName.name) on the session bus")
        // The bus's daemon gone (the desktop session ended, or it crashed):
        // said once, and the name is not followed any more; the rest of
        // the daemon (sessions, schedules, blocks) goes on as without a bus.
        let lost = LostFlag()
        name.onLost {
            lost.value.store(true, ordering: .releasing)
            log(.warning, "lost the session bus at \(bus): no D-Bus name until the daemon restarts")
            mailbox.post(.signal(SIGHUP))
        }
        await ServiceLifecycle.withHandlers(onShutdown: { _ in mailbox.post(.signal(SIGTERM)) }) {
            await follow(name, wake: wake)
        }
        for watcher in watchers { await watcher.stop() }
        name.close()
        // Ended by the bus's loss, not the daemon's stop: wait for that,
        // as with no bus at all (a service that returns would stop the daemon).
        if lost.value.load(ordering: .acquiring) { await ServiceLifecycle.shutdownRequested() }
    }

    /// Publishes the status at each change of the data and at each edge
    /// (a phase's end, the session's), until the daemon stops.
    private func follow(_ name: RetimeBusName, wake: WakeSource) async {
        while true {
            var deadline: Date?
            if let container = services.current, let status = try? container.resolve(SessionStatusUseCase.self),
               let clock = try? container.resolve((any RetimeShared.Clock).self) {
                do {
                    let now = clock.now()
                    let current = try await status.execute()
                    name.publish(Self.properties(current, at: now))
                    deadline = Self.edge(current, now: now)
                } catch {
                    // A damaged file: the properties stay as they were; the data's repair wakes this.
                    log(.warning, "cannot read the session for D-Bus: \(error)")
                }
            }
            if case .signal = await wake.wait(until: deadline) { return }
        }
    }

    /// What the properties say of `status` (nil: no session).
    static func properties(_ status: SessionStatus?, at now: Date) -> RetimeBusProperties {
        var properties = RetimeBusProperties()
        properties.at = now
        guard let status else { return properties }
        properties.active = true
        properties.group = status.groupName ?? ""
        properties.phase = status.session.cyclePhase?.kind.rawValue ?? "work"
        properties.endsAt = status.plannedEnd
        properties.remaining = status.remaining
        properties.strict = status.session.strict
        properties.paused = status.session.isPaused
        return properties
    }

    /// The next instant the state changes without a write: the phase's
    /// end or the session's (a moment after, when the daemon records it).
    static func edge(_ status: SessionStatus?, now: Date) -> Date? {
        guard let status, !status.session.isPaused else { return nil }
        let ends = [status.session.cyclePhase?.end, status.remaining.map { now + max($0, 0.05) }].compactMap { $0 }.filter { $0 > now }
        return ends.min() ?? status.remaining.map { _ in now + 0.05 }
    }

    /// Runs a method's use case; its failure's code and message, or nil.
    static func run(_ call: RetimeBusCall, services: ContainerService) async -> (code: String, message: String)? {
        do {
            let container = try services.container()
            switch call {
            case .start(let group, let seconds):
                _ = try await container.resolve(StartSessionUseCase.self)
                    .execute(SessionPlan(groupName: group, length: seconds == 0 ? .openEnded : .duration(TimeInterval(seconds))))
            case .stop: _ = try await container.resolve(StopSessionUseCase.self).execute()
            case .pause: _ = try await container.resolve(PauseSessionUseCase.self).execute()
            case .resume: _ = try await container.resolve(ResumeSessionUseCase.self).execute()
            }
            return nil
        } catch let error as any RetimeError {
            return (error.code, error.description)
        } catch {
            return ("daemon.failed", "\(error)")
        }
    }

    private func log(_ level: LogLevel, _ message: String) {
        guard let logger = try? services.current?.resolve(Logger.self) else { return }
        if level == .warning { logger.warning("\(message)") } else { logger.info("\(message)") }
    }
}

/// Where the user's session bus is.
enum DesktopBusSession {
    /// `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` if it is a
    /// socket; nil when neither (no session bus here).
    static func address(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        let socket = runtime + "/bus"
        var info = stat()
        guard stat(socket, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + socket
    }
}

/// Whether the session bus went away under the daemon's name.
private final class LostFlag: Sendable {
    let value = Atomic<Bool>(false)
}
#endif
