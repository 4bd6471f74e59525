import FoundationEssentials
import RetimeSession
import RetimeShared

/// What a report by day or week needs of one month of history (every
/// device's segments of it), worked out once in one time zone and kept
/// (`HistorySummaryStore`), so a report over years reads a few numbers per
/// day instead of every session:
///
/// - per local day: the sessions that started in it (completed, stopped,
///   cycle rounds) and the month's own focused time in it;
/// - the union of its sessions' focused stretches, for the days it shares
///   with other parts of history (there the union is taken again, over
///   every part that has time in the day);
/// - its sessions' ids, hashed, to tell when an amendment or another part
///   of history names one of them (then its sessions are read instead);
/// - the day starts it was worked out with: it stands only for a time zone
///   that starts those days at exactly those instants;
/// - the version of every segment it was made from.
///
/// It is exact by construction: a report takes its numbers only where
/// reading the sessions would have given the same ones (`ReportDays`).
public struct MonthSummary: Sendable, Equatable {
    /// One local day's part.
    public struct Day: Sendable, Equatable {
        /// Days since 1970-01-01, local (`LocalDays`).
        public var day: Int64
        /// The month's focused time within the day: the union of its own
        /// sessions' stretches there, summed in time order.
        public var focusedSeconds: Double
        public var sessions: Int
        public var completed: Int
        public var stopped: Int
        public var rounds: Int

        public init(day: Int64, focusedSeconds: Double, sessions: Int, completed: Int, stopped: Int, rounds: Int) {
            self.day = day
            self.focusedSeconds = focusedSeconds
            self.sessions = sessions
            self.completed = completed
            self.stopped = stopped
            self.rounds = rounds
        }
    }

    /// A focused stretch of the union, `start` before `end`.
    public struct Stretch: Sendable, Equatable {
        public var start: Date
        public var end: Date

        public init(start: Date, end: Date) {
            self.start = start
            self.end = end
        }
    }

    /// The versions of the segments it was made from
    /// (`HistorySegment.version`), and how they were read.
    public var version: String
    /// The earliest and latest start among its sessions; nil when it has none.
    public var starts: ClosedRange<Date>?
    /// The first day of `dayStarts`.
    public var firstDay: Int64
    /// When each day from `firstDay` on starts, as the time zone it was made
    /// in said: every day its numbers were worked out from.
    public var dayStarts: [Date]
    /// Its days with sessions or focused time, in order.
    public var days: [Day]
    /// The union of its sessions' focused stretches, merged, in time order.
    public var stretches: [Stretch]
    /// Its sessions' ids as `fingerprint(of:)` hashes them, ascending, each once.
    public var fingerprints: [UInt64]

    public init(version: String, starts: ClosedRange<Date>?, firstDay: Int64, dayStarts: [Date], days: [Day], stretches: [Stretch],
                fingerprints: [UInt64]) {
        self.version = version
        self.starts = starts
        self.firstDay = firstDay
        self.dayStarts = dayStarts
        self.days = days
        self.stretches = stretches
        self.fingerprints = fingerprints
    }

    /// The key a month's summary is kept under: `2026-03` for the month
    /// that begins at `month`'s start (UTC).
    public static func key(of month: Range<Date>) -> String {
        let day = Int64((month.lowerBound.timeIntervalSince1970 / 86_400).rounded(.down))
        let (year, number, _) = Timestamp.civil(fromDays: day)
        return "\(year)-\(number < 10 ? "0" : "")\(number)"
    }

    /// A session id in 64 bits. Two ids that hash alike only make a report
    /// read sessions it could have summed: a clash is never taken for a match.
    public static func fingerprint(of id: SessionID) -> UInt64 {
        let bytes = id.rawValue.uuid
        let high = UInt64(bytes.0) << 56 | UInt64(bytes.1) << 48 | UInt64(bytes.2) << 40 | UInt64(bytes.3) << 32
            | UInt64(bytes.4) << 24 | UInt64(bytes.5) << 16 | UInt64(bytes.6) << 8 | UInt64(bytes.7)
        let low = UInt64(bytes.8) << 56 | UInt64(bytes.9) << 48 | UInt64(bytes.10) << 40 | UInt64(bytes.11) << 32
            | UInt64(bytes.12) << 24 | UInt64(bytes.13) << 16 | UInt64(bytes.14) << 8 | UInt64(bytes.15)
        // Both halves count: a version 4 id's fixed bits are in each.
        return (high &* 0x9E37_79B9_7F4A_7C15) ^ low
    }

    /// Whether one of its sessions may have `fingerprint`.
    public func holds(_ fingerprint: UInt64) -> Bool {
        var low = 0, high = fingerprints.count
        while low < high {
            let middle = (low + high) / 2
            if fingerprints[middle] < fingerprint { low = middle + 1 } else { high = middle }
        }
        return low < fingerprints.count && fingerprints[low] == fingerprint
    }
}
