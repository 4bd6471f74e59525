import FoundationEssentials
import RetimeShared

/// A named set of targets that a focus session blocks.
public struct Group: Identifiable, Hashable, Sendable, Codable {
    public let id: GroupID
    public var name: GroupName
    /// In the order they were added, without duplicates.
    public private(set) var targets: [Target]
    public let createdAt: Date
    public var updatedAt: Date
    /// How long a day the group's block may be lifted on request (`retime
    /// allow`), merged per field as the name is; nil for none.
    public var allowance: TimeInterval?

    public init(id: GroupID = GroupID(), name: GroupName, targets: [Target] = [], createdAt: Date, updatedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.targets = []
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        add(targets)
    }

    /// Adds the targets not already present; returns those that were new.
    @discardableResult
    public mutating func add(_ newTargets: [Target]) -> [Target] {
        var added: [Target] = []
        for target in newTargets where !targets.contains(target) && !added.contains(target) {
            added.append(target)
        }
        targets += added
        return added
    }

    /// Removes the given targets; all must be present.
    public mutating func remove(_ removed: [Target]) throws(GroupError) {
        for target in removed where !targets.contains(target) {
            throw .targetNotInGroup(target: target.description, group: name.rawValue)
        }
        targets.removeAll { removed.contains($0) }
    }

    /// Whether a host name or app falls under one of this group's targets.
    public func blocks(_ candidate: Target) -> Bool {
        targets.contains { $0.covers(candidate) }
    }
}

/// Identifies a `Group`; the only way other contexts refer to one.
public typealias GroupID = EntityID<Group>
