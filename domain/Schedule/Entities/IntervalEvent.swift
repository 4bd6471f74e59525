import FoundationEssentials
import RetimeSession

/// One occurrence of a schedule's interval: the local day it belongs to and
/// the instants it starts and ends.
public struct IntervalInstance: Hashable, Sendable, Codable {
    public var scheduleId: ScheduleID
    /// The local date it starts on, `2026-11-23`; with the schedule it
    /// identifies the instance, which is how each is handled only once.
    public var day: String
    public var start: Date
    public var end: Date

    public init(scheduleId: ScheduleID, day: String, start: Date, end: Date) {
        self.scheduleId = scheduleId
        self.day = day
        self.start = start
        self.end = end
    }
}

/// An event of an interval instance, at its instant.
public struct IntervalEvent: Hashable, Sendable {
    public var schedule: Schedule
    public var kind: IntervalEventKind
    public var at: Date
    public var interval: IntervalInstance

    public init(schedule: Schedule, kind: IntervalEventKind, at: Date, interval: IntervalInstance) {
        self.schedule = schedule
        self.kind = kind
        self.at = at
        self.interval = interval
    }

    /// Time order; at one instant an interval's own events keep their
    /// sequence, an ending comes before another interval's start (back to
    /// back), and the schedule name breaks what ties remain.
    public static func precedes(_ lhs: IntervalEvent, _ rhs: IntervalEvent) -> Bool {
        if lhs.at != rhs.at { return lhs.at < rhs.at }
        if lhs.interval == rhs.interval { return lhs.kind.sequence < rhs.kind.sequence }
        if lhs.kind.endsFirst != rhs.kind.endsFirst { return lhs.kind.endsFirst }
        // Plain comparison: cheap, and only needs to be stable.
        if lhs.schedule.name != rhs.schedule.name { return lhs.schedule.name < rhs.schedule.name }
        return lhs.kind.sequence < rhs.kind.sequence
    }
}

extension IntervalEventKind {
    var sequence: Int { Self.allCases.firstIndex(of: self)! }
    /// Endings come before other intervals' events at the same instant.
    var endsFirst: Bool { self == .intervalDidEnd }
}
