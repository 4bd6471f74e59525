/// Removes, enables or disables a schedule by name.
public struct ChangeScheduleUseCase: Sendable {
    private let schedules: any ScheduleRepository
    private let dataLock: any DataLock

    public init(schedules: any ScheduleRepository, dataLock: any DataLock) {
        self.schedules = schedules
        self.dataLock = dataLock
    }

    /// Removes the schedule; returns it as it was.
    @discardableResult
    public func remove(named name: String) async throws -> Schedule {
        try await dataLock.exclusively {
            let schedule = try await existing(name)
            try await schedules.delete(id: schedule.id)
            return schedule
        }
    }

    /// Turns the schedule on or off; returns it as it is now.
    @discardableResult
    public func setEnabled(_ enabled: Bool, named name: String) async throws -> Schedule {
        try await dataLock.exclusively {
            var schedule = try await existing(name)
            guard schedule.enabled != enabled else { return schedule }
            schedule.enabled = enabled
            try await schedules.update(schedule)
            return schedule
        }
    }

    private func existing(_ name: String) async throws -> Schedule {
        guard let schedule = try await schedules.schedule(named: name) else { throw ScheduleError.notFound(name: name) }
        return schedule
    }
}
