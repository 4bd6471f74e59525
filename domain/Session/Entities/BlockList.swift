import RetimeGroup

/// What the Session context needs to know of a group: its id, its name for
/// messages, and the targets to block.
public struct BlockList: Hashable, Sendable {
    public var groupId: GroupID
    public var name: String
    public var targets: [Target]

    public init(groupId: GroupID, name: String, targets: [Target]) {
        self.groupId = groupId
        self.name = name
        self.targets = targets
    }
}
