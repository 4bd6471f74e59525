#if os(Linux)
import CRetimeWayland
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc

/// Why the compositor's idle time cannot be followed (for `doctor`).
struct WaylandIdleError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One connection to the Wayland compositor's idle notifications and the
/// thread that follows it. libwayland's display is used by that thread
/// only; `stop` wakes its poll through a pipe, and the thread closes what
/// it opened on its way out.
final class WaylandIdleConnection: Sendable {
    /// The idle protocols a compositor may offer, best first.
    enum IdleProtocol: Sendable {
        /// `ext_idle_notifier_v1` (KDE Plasma 6, sway >= 1.8, Hyprland, wlroots >= 0.17).
        case extIdleNotify
        /// KDE's older `org_kde_kwin_idle` (KWin 5, sway 1.7).
        case kwinIdle

        init?(_ raw: Int32) {
            switch Int(raw) {
            case Int(RW_EXT_IDLE_NOTIFY): self = .extIdleNotify
            case Int(RW_KDE_KWIN_IDLE): self = .kwinIdle
            default: return nil
            }
        }

        /// How `doctor` names it.
        var name: String {
            switch self {
            case .extIdleNotify: "ext-idle-notify (ext_idle_notifier_v1)"
            case .kwinIdle: "kwin idle (org_kde_kwin_idle)"
            }
        }
    }

    /// How long a compositor may take to answer a round trip before it is
    /// called absent: a hung compositor must not hang the daemon's start.
    static let answerWithin: Int32 = 5_000

    /// The best idle protocol the compositor at `path` offers: connects,
    /// reads its globals, disconnects.
    static func offered(at path: String) throws(WaylandIdleError) -> IdleProtocol {
        let idle = try open(path, timeout: 0)
        defer { rw_idle_close(idle) }
        guard let offered = IdleProtocol(rw_idle_offered(idle)) else {
            throw WaylandIdleError("the compositor at \(path) offers neither ext_idle_notifier_v1 nor org_kde_kwin_idle")
        }
        return offered
    }

    private static func open(_ path: String, timeout: UInt32) throws(WaylandIdleError) -> OpaquePointer {
        var why = [CChar](repeating: 0, count: 256)
        guard let idle = rw_idle_open(path, timeout, answerWithin, &why, why.count) else {
            throw WaylandIdleError(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return idle
    }

    /// The protocol followed.
    let followed: IdleProtocol
    nonisolated(unsafe) private let idle: OpaquePointer
    private let wake: WakePipe
    /// `closed` once the thread has closed the pipe: no wake after it.
    private let state = Mutex<(stopping: Bool, closed: Bool)>((false, false))

    /// Connects to the compositor at `path` and asks to hear once its seat
    /// has had no input for `timeout` milliseconds (the caller's thread: two
    /// round trips).
    init(path: String, timeout: UInt32) throws(WaylandIdleError) {
        let idle = try Self.open(path, timeout: timeout)
        do {
            wake = try WakePipe { WaylandIdleError("no pipe for the idle thread (\($0))") }
        } catch {
            rw_idle_close(idle)
            throw error
        }
        self.idle = idle
        followed = IdleProtocol(rw_idle_protocol(idle)) ?? .kwinIdle
    }

    /// Follows the notifications on a thread of its own until `stop` or the
    /// compositor goes away: `report(true, at)` when the seat went idle (the
    /// notification's receipt), `report(false, at)` at the next input;
    /// `ended()` once, after the last report.
    func start(report: @escaping @Sendable (_ idle: Bool, _ at: Date) -> Void, ended: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "retime.wayland-idle").async { [self] in
            loop(report)
            state.withLock { state in
                state.closed = true
                wake.close()
            }
            rw_idle_close(idle)
            ended()
        }
    }

    /// Ends the thread soon (not waiting for it); a second call does nothing.
    func stop() {
        state.withLock { state in
            guard !state.stopping, !state.closed else { return }
            state.stopping = true
            wake.wake()
        }
    }

    private func loop(_ report: (Bool, Date) -> Void) {
        while !state.withLock({ $0.stopping }) {
            guard rw_idle_prepare(idle) == 0 else { return }
            var fds = [pollfd(fd: rw_idle_fd(idle), events: Int16(POLLIN), revents: 0),
                       wake.pollRead]
            let polled = poll(&fds, 2, -1)
            if polled < 0, errno != EINTR { _ = rw_idle_dispatch(idle, 0); return }
            let readable = polled > 0 && fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
            guard rw_idle_dispatch(idle, readable ? 1 : 0) == 0 else { return }
            var at: Int64 = 0
            var event = rw_idle_next(idle, &at)
            while event >= 0 {
                report(event == 1, Date(timeIntervalSince1970: Double(at) / 1_000_000_000))
                event = rw_idle_next(idle, &at)
            }
        }
    }
}
#endif
