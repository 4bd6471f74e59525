#if os(Linux)
import Domain
import FoundationEssentials
import Synchronization

/// The `PresenceSignals` port over the Wayland compositor's own idle time,
/// for the desktops whose idle logind never hears of (KDE Plasma, sway,
/// Hyprland): `ext-idle-notify-v1`, else KDE's older `org_kde_kwin_idle`,
/// on the compositor at `$WAYLAND_DISPLAY`. It tells idle and present only
/// (lock and sleep are logind's; the two are combined by
/// `CombinedPresenceSignals`). The compositor cannot say how long input has
/// already stopped: the first state is present, and idle is told once no
/// input came for `idleAfter` after the connection or the last input.
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
            let path = try WaylandIdleConnection.socketPath(environment)
            let offered = try WaylandIdleConnection.offered(at: path)
            return .available(source: "the compositor's \(offered.name) on \(path)")
        } catch {
            return .unavailable(reason: "the compositor's idle time is not followed: \(error.description)")
        }
    }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceChange.self, bufferingPolicy: .unbounded)
        let connection: WaylandIdleConnection
        do throws(WaylandIdleError) {
            connection = try WaylandIdleConnection(path: try WaylandIdleConnection.socketPath(environment),
                                                   timeout: UInt32(clamping: Int(idleAfter * 1000)))
        } catch {
            continuation.finish()
            return stream
        }
        let idleAfter = idleAfter
        // Told once per change: the compositor may say resumed where it
        // said nothing before it.
        let last = Mutex<PresenceChange.State>(.present)
        continuation.yield(PresenceChange(state: .present, since: Date()))
        connection.start(report: { idle, at in
            let state: PresenceChange.State = idle ? .idle : .present
            guard last.withLock({ last in defer { last = state }; return last != state }) else { return }
            // Input stopped `idleAfter` before the compositor said so.
            continuation.yield(PresenceChange(state: state, since: idle ? at.addingTimeInterval(-idleAfter) : at))
        }, ended: {
            // The compositor gone (the graphical session ended): no longer idle by its word.
            if last.withLock({ $0 }) == .idle { continuation.yield(PresenceChange(state: .present, since: Date())) }
            continuation.finish()
        })
        continuation.onTermination = { _ in connection.stop() }
        return stream
    }
}
#endif
