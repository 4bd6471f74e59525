import FoundationEssentials
import RetimeGroup
import RetimeSession
import RetimeShared

/// Identifies a `Schedule`.
public typealias ScheduleID = EntityID<Schedule>

/// A recurring interval that the daemon turns into sessions: on the given
/// weekdays, from `from` to `to` local time (`to` before `from` crosses
/// midnight and belongs to the day it starts), on one group.
public struct Schedule: Identifiable, Hashable, Sendable, Codable {
    public let id: ScheduleID
    public var name: String
    public var groupId: GroupID
    public var from: TimeOfDay
    public var to: TimeOfDay
    public var weekdays: Set<Weekday>
    /// How long before the start and the end the warning events fire; 0 for none.
    public var warnSeconds: TimeInterval
    public var strict: Bool
    public var enabled: Bool
    /// A removal or disabling of this strict schedule that waits for the
    /// end of its next interval (`PendingScheduleChange`); nil for none.
    public var pending: PendingScheduleChange?
    /// The focus cycle its sessions run (`schedule add --cycle`), fitted
    /// into each interval (`Cycle.fitted`); nil for a plain block.
    public var cycle: Cycle?
    /// The allowance its sessions carry for the group (`schedule add
    /// --allowance`): how long a day `retime allow` may lift their block,
    /// in place of the group's own; nil for the group's.
    public var allowance: TimeInterval?

    public init(id: ScheduleID = ScheduleID(), name: String, groupId: GroupID, from: TimeOfDay, to: TimeOfDay,
                weekdays: Set<Weekday>, warnSeconds: TimeInterval = 0, strict: Bool = false, enabled: Bool = true,
                pending: PendingScheduleChange? = nil, cycle: Cycle? = nil) {
        self.pending = pending
        self.cycle = cycle
        self.id = id
        self.name = name
        self.groupId = groupId
        self.from = from
        self.to = to
        self.weekdays = weekdays
        self.warnSeconds = warnSeconds
        self.strict = strict
        self.enabled = enabled
    }

    /// Whether the interval ends on the day after it starts.
    public var crossesMidnight: Bool { to <= from }

    /// The comparison form of the name (`NameRules`).
    public var nameKey: String { NameRules.comparisonKey(name) }

    /// The weekdays in week order, as JSON shows them.
    public var orderedWeekdays: [Weekday] { weekdays.sorted() }
}

extension Schedule {
    /// As synthesized, but the weekdays in week order: a set's order changes
    /// from process to process, and a stored or exported schedule must read
    /// the same each time it is written.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(groupId, forKey: .groupId)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(orderedWeekdays, forKey: .weekdays)
        try container.encode(warnSeconds, forKey: .warnSeconds)
        try container.encode(strict, forKey: .strict)
        try container.encode(enabled, forKey: .enabled)
        try container.encodeIfPresent(pending, forKey: .pending)
        try container.encodeIfPresent(cycle, forKey: .cycle)
        try container.encodeIfPresent(allowance, forKey: .allowance)
    }
}
