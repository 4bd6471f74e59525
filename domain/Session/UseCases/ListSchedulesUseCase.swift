/// The schedules, each with its group's name now: `schedule list` and
/// `schedule show`.
public struct ListSchedulesUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let groups: any SessionGroupLookup

    public init(schedules: any ScheduleRepository, groups: any SessionGroupLookup) {
        self.schedules = schedules
        self.groups = groups
    }

    /// Every schedule, in the repository's order.
    public func all() async throws -> [NamedSchedule] {
        let schedules = try await schedules.all()
        guard !schedules.isEmpty else { return [] }
        let names = try await groups.groupNames()
        return schedules.map { NamedSchedule(schedule: $0, groupName: names[$0.groupId]) }
    }

    /// The schedule named `name` (case-insensitively); `ScheduleError.notFound` if none.
    public func named(_ name: String) async throws -> NamedSchedule {
        guard let schedule = try await schedules.schedule(named: name) else { throw ScheduleError.notFound(name: name) }
        return NamedSchedule(schedule: schedule, groupName: try await groups.groupName(id: schedule.groupId))
    }
}
