/// Where schedules live. Names are unique case-insensitively, enforced
/// atomically by the repository.
///
/// The contract every adapter keeps is `ScheduleRepositoryContract`.
public protocol ScheduleRepository: Sendable {
    /// Every schedule, ordered by name, case-insensitively.
    func all() async throws -> [Schedule]
    /// The schedule whose name matches case-insensitively.
    func schedule(named name: String) async throws -> Schedule?
    /// Adds a schedule. Throws `ScheduleError.alreadyExists`, naming the
    /// holder, if the name (or id) is taken.
    func insert(_ schedule: Schedule) async throws
    /// Replaces the schedule with the same id; `notFound` if there is none.
    func update(_ schedule: Schedule) async throws
    /// Removes the schedule; `notFound` if there is none.
    func delete(id: ScheduleID) async throws
}
