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
/// With no session bus it logs one line and waits for the daemon's stop;
/// when the bus goes away under it, it owns the name again once a bus
/// answers at the same address (`ReconnectBackoff`), said once each way.
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
        var name: RetimeBusName
        do { name = try own(posting: mailbox) } catch {
            log(.warning, "cannot own \(RetimeBusName.name) on the session bus at \(bus): \(error)")
            await ServiceLifecycle.shutdownRequested()
            return
        }
        let watchers: [any WakeWatcher] = [try DirectoryWatcher.data(directory: store), try DirectoryWatcher.changeLogs(devices: devices)]
        for watcher in watchers { try watcher.start(posting: mailbox) }
        let wake = try WakeSource(mailbox: mailbox, followsTimeZone: false)
        log(.info, "owns \(RetimeBusName.name) on the session bus")
        let flags = BusFlags()
        await ServiceLifecycle.withHandlers(onShutdown: { _ in
            flags.stopping.store(true, ordering: .releasing)
            mailbox.post(.signal(SIGTERM))
        }) {
            while true {
                // The bus's daemon gone (the desktop session ended, `systemctl
                // --user restart dbus`, a crash): said once, then the name is
                // owned again when a bus answers at the same address; the rest
                // of the daemon (sessions, schedules, blocks) goes on meanwhile.
                flags.lost.store(false, ordering: .releasing)
                name.onLost {
                    flags.lost.store(true, ordering: .releasing)
                    mailbox.post(.signal(SIGHUP))
                }
                await follow(name, wake: wake)
                name.close()
                guard flags.lost.load(ordering: .acquiring), !flags.stopping.load(ordering: .acquiring) else { return }
                log(.warning, "lost the session bus at \(bus): owning \(RetimeBusName.name) again when it is back")
                guard let again = await reconnect(posting: mailbox, wake: wake, stopping: flags) else { return }
                log(.notice, "reconnected to the session bus at \(bus): owns \(RetimeBusName.name) again")
                name = again
            }
        }
        for watcher in watchers { await watcher.stop() }
    }

    /// Connects, exports the object and owns the name; a method call's
    /// change of state is published at once, not at the watcher's word.
    private func own(posting mailbox: WakeMailbox) throws(BusError) -> RetimeBusName {
        let services = services
        return try RetimeBusName(environment: environment) { call in
            let failure = await Self.run(call, services: services)
            mailbox.post(.dataChanged)
            return failure
        }
    }

    /// Tries to own the name again after `ReconnectBackoff`'s delays (1 s,
    /// doubling to 60 s: a bus that stays away costs a connect a minute,
    /// no busy loop); nil once the daemon stops.
    private func reconnect(posting mailbox: WakeMailbox, wake: WakeSource, stopping: BusFlags) async -> RetimeBusName? {
        var backoff = ReconnectBackoff()
        while true {
            // Counted on the monotonic clock: a wall clock set back does not stretch it.
            let attempt = ContinuousClock.now + .seconds(backoff.next())
            // The data's changes wake the wait too: not a reason to try sooner.
            while ContinuousClock.now < attempt {
                let left = ContinuousClock.now.duration(to: attempt).components
                let until = Date().addingTimeInterval(Double(left.seconds) + Double(left.attoseconds) / 1e18)
                if case .signal = await wake.wait(until: until), stopping.stopping.load(ordering: .acquiring) { return nil }
            }
            if stopping.stopping.load(ordering: .acquiring) { return nil }
            if let name = try? own(posting: mailbox) { return name }
        }
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
        switch level {
        case .warning: logger.warning("\(message)")
        case .notice: logger.notice("\(message)")
        default: logger.info("\(message)")
        }
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

/// Whether the session bus went away under the daemon's name, and
/// whether the daemon is stopping (then it is not owned again).
private final class BusFlags: Sendable {
    let lost = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
}
#endif
