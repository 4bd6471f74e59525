import FoundationEssentials

/// What one pass of the daemon did, and when it should look again.
public struct DaemonStep: Sendable, Equatable {
    /// Something the daemon handled, with how late it was.
    public struct Handled: Sendable, Equatable {
        public enum Action: String, Sendable {
            case sessionCompleted, sessionStarted, intervalSkipped, intervalMissed, warning, intervalEnded
        }

        public var action: Action
        /// The schedule, for interval events.
        public var schedule: String?
        /// The instant it was due.
        public var due: Date
        /// How long after `due` it was handled.
        public var lateness: TimeInterval
    }

    public var handled: [Handled]
    /// The next instant something is due; nil when nothing ever is.
    public var nextDeadline: Date?
}
