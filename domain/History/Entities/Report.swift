import FoundationEssentials

/// How a report groups history.
public enum ReportGrouping: String, Sendable, CaseIterable {
    case day, week, group, tag
    /// Each group's time by tag, in one table (`work / deep`).
    case groupTag = "group,tag"

    /// Whether its buckets are names (groups, tags), not days or weeks.
    public var byName: Bool { self == .group || self == .tag || self == .groupTag }
    /// Whether its buckets need the sessions' tags.
    public var byTag: Bool { self == .tag || self == .groupTag }

    /// What a session without tags is filed under in a report by tag.
    public static let untagged = "(no tag)"
}

/// Focused time and sessions per bucket, as `retime report` shows them.
public struct Report: Sendable, Equatable {
    public struct Bucket: Sendable, Equatable {
        /// `2026-11-22`, `2026-W47`, or a group's name.
        public var key: String
        /// Time in sessions minus their breaks, within this bucket.
        public var focusedSeconds: Double
        /// Sessions that started in this bucket.
        public var sessions: Int
        /// Of those, how many ran to their planned end, and how many were stopped.
        public var completed: Int
        public var stopped: Int
        /// Focus cycles' rounds run to their end (`SessionSpan.completedRounds`).
        public var rounds: Int

        public init(key: String, focusedSeconds: Double = 0, sessions: Int = 0, completed: Int = 0, stopped: Int = 0, rounds: Int = 0) {
            self.key = key
            self.focusedSeconds = focusedSeconds
            self.sessions = sessions
            self.completed = completed
            self.stopped = stopped
            self.rounds = rounds
        }

        /// Completed sessions among the finished ones; nil when there were none.
        public var completionRate: Double? {
            completed + stopped == 0 ? nil : Double(completed) / Double(completed + stopped)
        }
    }

    public var since: Date?
    public var until: Date?
    public var grouping: ReportGrouping
    public var buckets: [Bucket]
    /// The whole range, each session once and overlaps once, as the
    /// builder counted it; nil to sum the buckets.
    public var overall: Bucket?

    public init(since: Date?, until: Date?, grouping: ReportGrouping, buckets: [Bucket], overall: Bucket? = nil) {
        self.since = since
        self.until = until
        self.grouping = grouping
        self.buckets = buckets
        self.overall = overall
    }

    /// A session with two tags is in two buckets of a report by tag, and
    /// two groups' sessions may overlap: the total counts each once.
    public var total: Bucket {
        overall ?? Bucket(key: "total", focusedSeconds: buckets.reduce(0) { $0 + $1.focusedSeconds },
                          sessions: buckets.reduce(0) { $0 + $1.sessions },
                          completed: buckets.reduce(0) { $0 + $1.completed }, stopped: buckets.reduce(0) { $0 + $1.stopped },
                          rounds: buckets.reduce(0) { $0 + $1.rounds })
    }
    public var totalFocusedSeconds: Double { total.focusedSeconds }
    public var totalSessions: Int { total.sessions }
}
