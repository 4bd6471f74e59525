import Domain

/// Answers the Session context's questions about groups from the Group
/// context's repository.
public struct GroupRepositoryLookup: SessionGroupLookup {
    private let groups: any GroupRepository

    public init(groups: any GroupRepository) {
        self.groups = groups
    }

    public func blockList(named name: String) async throws -> BlockList? {
        try await groups.group(named: name).map(Self.blockList)
    }

    public func blockList(id: GroupID) async throws -> BlockList? {
        try await groups.group(id: id).map(Self.blockList)
    }

    public func groupID(named name: String) async throws -> GroupID? {
        try await groups.id(named: name)
    }

    public func groupName(id: GroupID) async throws -> String? {
        try await groups.name(of: id)
    }

    public func groupNames() async throws -> [GroupID: String] {
        try await groups.names()
    }

    public func allGroups() async throws -> [Group] {
        try await groups.all()
    }

    private static func blockList(_ group: Group) -> BlockList {
        BlockList(groupId: group.id, name: group.name.rawValue, targets: group.targets, allowance: group.allowance)
    }
}
