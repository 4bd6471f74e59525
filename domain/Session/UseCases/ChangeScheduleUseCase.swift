/// Removes, enables or disables a schedule by name.
public struct ChangeScheduleUseCase: Sendable {
    private let schedules: any ScheduleRepository

    public init(schedules: any ScheduleRepository) {
        self.schedules = schedules
    }

    /// Removes the schedule; returns it as it was.
    @discardableResult
    public func remove(named name: String) async throws -> Schedule {
        let schedule = try await existing(name)
        try await schedules.delete(id: schedule.id)
        return schedule
    }

    /// Turns the schedule on or off; returns it as it is now.
    @discardableResult
    public func setEnabled(_ enabled: Bool, named name: String) async throws -> Schedule {
        var schedule = try await existing(name)
        guard schedule.enabled != enabled else { return schedule }
        schedule.enabled = enabled
        try await schedules.update(schedule)
        return schedule
    }

    private func existing(_ name: String) async throws -> Schedule {
        guard let schedule = try await schedules.schedule(named: name) else { throw ScheduleError.notFound(name: name) }
        return schedule
    }
}
