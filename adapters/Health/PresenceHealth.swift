import Domain
import FoundationEssentials

/// `doctor`'s "away time" finding: whether the daemon can tell idle, lock
/// and sleep here (`PresenceSignals`), and whether the clocks can tell how
/// long the machine slept without it. Neither missing is an error: focused
/// time then simply includes what retime cannot see.
public struct PresenceHealth: HealthInspector {
    let presence: any PresenceSignals
    let clock: any Clock
    /// `away.threshold` in force; nil when the settings cannot be read.
    let threshold: TimeInterval?
    /// Whether the daemon, which does the following, runs now (nil: not asked).
    let daemon: (any DaemonPresence)?

    public init(presence: any PresenceSignals, clock: any Clock, threshold: TimeInterval?, daemon: (any DaemonPresence)? = nil) {
        self.presence = presence
        self.clock = clock
        self.threshold = threshold
        self.daemon = daemon
    }

    public func inspect(repairing: Bool) async -> [HealthCheck] {
        let clocks = clock.bootTime()?.awakeSeconds != nil
        let sleep = clocks ? "suspended time is left out of focused time (the boot-time and awake clocks tell it, daemon or not)"
            : "this system has no awake clock beside the boot-time clock: suspended time is told only by a presence source"
        let after = threshold.map { "after \(Int($0 / 60) > 0 && $0.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int($0 / 60))m" : "\(Int($0))s")" }
            ?? "after away.threshold"
        switch await presence.availability() {
        case .available(let source):
            // The source is what a daemon follows (it follows its bus back
            // when the bus restarts); whether one runs to follow it now:
            let now = daemon.map { $0.running().map { " (now: the daemon, pid \($0.pid))" } ?? " (no daemon runs now: 'retime daemon install')" } ?? ""
            return [HealthCheck(name: "away time", status: .ok,
                                detail: "followed through \(source) while the daemon runs\(now): idle or locked \(after) is away; \(sleep)")]
        case .unavailable(let reason):
            return [HealthCheck(name: "away time", status: clocks ? .ok : .warning,
                                detail: "idle and lock are not followed: \(reason); \(sleep)")]
        }
    }
}
