import RetimeGroup

/// How the Session context learns about groups without depending on the
/// Group context's repository: the composition root adapts one to the other.
public protocol SessionGroupLookup: Sendable {
    /// The group named `name` (case-insensitively), or nil.
    func blockList(named name: String) async throws -> BlockList?
    /// The group with `id`, or nil if it has been deleted.
    func blockList(id: GroupID) async throws -> BlockList?
    /// The id of the group named `name` (case-insensitively), or nil: for
    /// a caller that needs only that, without the group's targets.
    func groupID(named name: String) async throws -> GroupID?
    /// The name of the group with `id`, or nil if it has been deleted.
    func groupName(id: GroupID) async throws -> String?
    /// Every group's name, by id: for a listing that names many groups
    /// (log, schedule list) without reading their targets.
    func groupNames() async throws -> [GroupID: String]
    /// Every group whole, as a backup carries it.
    func allGroups() async throws -> [Group]
}

extension SessionGroupLookup {
    /// The id of the group named `name`; nil for no name (no filter), and
    /// `SessionError.groupNotFound` for a name no group has.
    func id(named name: String?) async throws -> GroupID? {
        guard let name else { return nil }
        guard let id = try await groupID(named: name) else { throw SessionError.groupNotFound(name: name) }
        return id
    }
}
