/// A schedule with the name its group has now (nil once the group is
/// deleted): what `schedule add`, `list` and `show` print.
public struct NamedSchedule: Sendable, Equatable {
    public var schedule: Schedule
    public var groupName: String?
    /// What `add` warns of (`ScheduleAdvice`); empty elsewhere.
    public var warnings: [String]

    public init(schedule: Schedule, groupName: String?, warnings: [String] = []) {
        self.schedule = schedule
        self.groupName = groupName
        self.warnings = warnings
    }
}
