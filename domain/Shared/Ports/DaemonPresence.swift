import FoundationEssentials

/// Whether the user's daemon runs, as `status` and `daemon status` tell it.
///
/// The contract every adapter keeps is `DaemonPresenceContract`.
public protocol DaemonPresence: Sendable {
    /// The running daemon; nil when none runs.
    func running() -> RunningDaemon?
}

/// A daemon that runs: its process, and since when (nil if unknown).
public struct RunningDaemon: Sendable, Equatable {
    public var pid: Int32
    public var since: Date?

    public init(pid: Int32, since: Date?) {
        self.pid = pid
        self.since = since
    }
}
