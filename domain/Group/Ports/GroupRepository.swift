/// Where groups live. Names are unique case-insensitively; the repository
/// enforces that atomically, so two processes creating the same name at once
/// cannot both succeed.
///
/// The contract every adapter keeps is `GroupRepositoryContract`.
public protocol GroupRepository: Sendable {
    /// Every group, ordered by name, case-insensitively.
    func all() async throws -> [Group]
    func group(id: GroupID) async throws -> Group?
    /// The name of the group with `id`, or nil if there is none: what a
    /// session shows, without reading the group's targets.
    func name(of id: GroupID) async throws -> String?
    /// Every group's name by id, without their targets: what a list of
    /// sessions or schedules shows beside each.
    func names() async throws -> [GroupID: String]
    /// The group whose name matches `name` case-insensitively.
    func group(named name: String) async throws -> Group?
    /// The id of the group `group(named:)` finds, without its targets.
    func id(named name: String) async throws -> GroupID?
    /// Adds a new group. Throws `GroupError.alreadyExists`, naming the group
    /// that holds the name (or the id), if either is taken.
    func insert(_ group: Group) async throws
    /// Adds many groups in one step (an import creating thousands): each
    /// whose name is free is inserted; for each, returns the group that now
    /// holds its name (itself, or the one that held it already). Throws
    /// `GroupError.alreadyExists` if a free name's id is taken.
    func insert(contentsOf groups: [Group]) async throws -> [Group]
    /// Replaces the group with the same id. Throws `GroupError.notFound` if
    /// there is none, `GroupError.alreadyExists` if another group has the name.
    func update(_ group: Group) async throws
    /// Removes the group. Throws `GroupError.notFound` if there is none.
    func delete(id: GroupID) async throws
}
