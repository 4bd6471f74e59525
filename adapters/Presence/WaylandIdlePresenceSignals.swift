#if os(Linux)
import Domain
import FoundationEssentials
import Synchronization

/// The `PresenceSignals` port over the Wayland compositor's own idle time,
/// for the desktops whose idle logind never hears of (KDE Plasma, sway,
/// Hyprland): `ext-idle-notify-v1`, else KDE's older `org_kde_kwin_idle`,
/// on the compositor at `$WAYLAND_DISPLAY`, else the one in
/// `$XDG_RUNTIME_DIR` (`WaylandDisplay`). It tells idle and present only
/// (lock and sleep are logind's; the two are combined by
/// `CombinedPresenceSignals`). The compositor cannot say how long input has
/// already stopped: the first state is present, and idle is told once no
/// input came for `idleAfter` after the connection or the last input.
///
/// A compositor not there yet (the daemon started with the login, before
/// the desktop) is waited for: the changes say present and follow it once
/// it answers. One that goes away while followed ends the changes, as the
/// port says a lost source does.
public struct WaylandIdlePresenceSignals: PresenceSignals {
    /// How long without input before the compositor says idle: shorter
    /// than the shortest `away.threshold` (30 s), which decides what counts
    /// as away, as GNOME's idle watch (`MutterIdleMonitor`) is.
    public static let defaultIdleAfter: TimeInterval = 30

    let environment: [String: String]
    let idleAfter: TimeInterval

    public init(environment: [String: String], idleAfter: TimeInterval = Self.defaultIdleAfter) {
        self.environment = environment
        self.idleAfter = idleAfter
    }

    public func availability() async -> PresenceAvailability {
        do throws(WaylandIdleError) {
            switch try found() {
            case .answering(let path):
                let offered = try WaylandIdleConnection.offered(at: path)
                return .available(source: "the compositor's \(offered.name) on \(path)")
            case .awaited(let display):
                return .available(source: "the compositor's idle time once a compositor starts at \(display.awaited) (none answers yet)")
            }
        } catch {
            return .unavailable(reason: "the compositor's idle time is not followed: \(error.description)")
        }
    }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceChange.self, bufferingPolicy: .unbounded)
        let follower = Follower(idleAfter: idleAfter, continuation: continuation)
        do throws(WaylandIdleError) {
            switch try found() {
            case .answering(let path):
                try follower.follow(WaylandIdleConnection(path: path, timeout: follower.timeout))
            case .awaited(let display):
                let wait = try WaylandDisplayWait(display)
                follower.waiting(wait)
                wait.start { path in
                    if let connection = try? WaylandIdleConnection(path: path, timeout: follower.timeout) {
                        follower.follow(connection)
                    } else {
                        // Found but not followed (it offers neither protocol, or
                        // did not answer in time under a loaded login): the
                        // changes end as for a lost compositor, so the follower
                        // looks again after its backoff, and a second look at a
                        // compositor that offers neither says unavailable.
                        follower.lost()
                    }
                    return true
                }
            }
        } catch {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in follower.stop() }
        return stream
    }

    /// Where the compositor is: answering now, or to be waited for.
    private enum Found {
        case answering(String)
        case awaited(WaylandDisplay)
    }

    private func found() throws(WaylandIdleError) -> Found {
        let display = try WaylandDisplay(environment)
        if let path = display.answering() { return .answering(path) }
        guard display.watchable else {
            // Nothing to wait in: say why the named socket does not answer.
            if let path = display.namedPath { _ = try WaylandIdleConnection.offered(at: path) }
            throw WaylandIdleError("no compositor answers in \(display.directory) (it does not exist)")
        }
        return .awaited(display)
    }

    /// The stream's one source at a time: the wait for a compositor, then
    /// its connection; `stop` ends whichever runs.
    final class Follower: Sendable {
        private enum Phase {
            case starting, waiting(WaylandDisplayWait), following(WaylandIdleConnection), stopped
        }

        let idleAfter: TimeInterval
        private let continuation: AsyncStream<PresenceChange>.Continuation
        private let phase = Mutex<Phase>(.starting)
        /// Told once per change: the compositor may say resumed where it
        /// said nothing before it.
        private let last = Mutex<PresenceChange.State?>(nil)

        init(idleAfter: TimeInterval, continuation: AsyncStream<PresenceChange>.Continuation) {
            self.idleAfter = idleAfter
            self.continuation = continuation
        }

        /// The notification's timeout, in milliseconds.
        var timeout: UInt32 { UInt32(clamping: Int(idleAfter * 1000)) }

        /// Present until a compositor is found, whose idle may then follow.
        func waiting(_ wait: WaylandDisplayWait) {
            phase.withLock { $0 = .waiting(wait) }
            tell(.present, since: Date())
        }

        func follow(_ connection: WaylandIdleConnection) {
            let stopped = phase.withLock { phase in
                if case .stopped = phase { return true }
                phase = .following(connection)
                return false
            }
            tell(.present, since: Date())
            let idleAfter = idleAfter
            connection.start(report: { [self] idle, at in
                // Input stopped `idleAfter` before the compositor said so.
                tell(idle ? .idle : .present, since: idle ? at.addingTimeInterval(-idleAfter) : at)
            }, ended: { [self] in
                // The compositor gone (the graphical session ended): no longer idle by its word.
                tell(.present, since: Date())
                continuation.finish()
            })
            // Stopped while it connected: started only to be closed by its thread.
            if stopped { connection.stop() }
        }

        /// The changes end: the compositor found could not be followed.
        func lost() {
            continuation.finish()
        }

        func stop() {
            switch phase.withLock({ phase in defer { phase = .stopped }; return phase }) {
            case .waiting(let wait): wait.stop()
            case .following(let connection): connection.stop()
            case .starting, .stopped: break
            }
        }

        private func tell(_ state: PresenceChange.State, since: Date) {
            guard last.withLock({ last in defer { last = state }; return last != state }) else { return }
            continuation.yield(PresenceChange(state: state, since: since))
        }
    }
}
#endif
