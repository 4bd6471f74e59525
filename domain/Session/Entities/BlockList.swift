import FoundationEssentials
import RetimeGroup

/// What the Session context needs to know of a group: its id, its name for
/// messages, and the targets to block.
public struct BlockList: Hashable, Sendable {
    public var groupId: GroupID
    public var name: String
    public var targets: [Target]
    /// How long a day its block may be lifted on request (`retime allow`); nil for none.
    public var allowance: TimeInterval?

    public init(groupId: GroupID, name: String, targets: [Target], allowance: TimeInterval? = nil) {
        self.allowance = allowance
        self.groupId = groupId
        self.name = name
        self.targets = targets
    }
}
