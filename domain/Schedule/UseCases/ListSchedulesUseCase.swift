import RetimeSession
import RetimeShared

/// The schedules, each with its group's name now: `schedule list` and
/// `schedule show`.
public struct ListSchedulesUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let groups: any SessionGroupLookup
    /// What a pending change is judged by: one whose time has come shows as
    /// made (nil: as stored).
    private let clock: (any Clock)?

    public init(schedules: any ScheduleRepository, groups: any SessionGroupLookup, clock: (any Clock)? = nil) {
        self.schedules = schedules
        self.groups = groups
        self.clock = clock
    }

    /// Every schedule, in the repository's order, as it stands now.
    public func all() async throws -> [NamedSchedule] {
        let now = clock?.now()
        let stored = try await schedules.all()
        let schedules = now.map { Schedule.standing(stored, at: $0) } ?? stored
        guard !schedules.isEmpty else { return [] }
        let names = try await groups.groupNames()
        return schedules.map { NamedSchedule(schedule: $0, groupName: names[$0.groupId]) }
    }

    /// The schedule named `name` (case-insensitively); `ScheduleError.notFound` if none.
    public func named(_ name: String) async throws -> NamedSchedule {
        guard let stored = try await schedules.schedule(named: name),
              let schedule = clock.map({ stored.effective(at: $0.now()) }) ?? stored else { throw ScheduleError.notFound(name: name) }
        return NamedSchedule(schedule: schedule, groupName: try await groups.groupName(id: schedule.groupId))
    }
}
