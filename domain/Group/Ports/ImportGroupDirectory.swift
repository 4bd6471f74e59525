import FoundationEssentials

/// How an import finds the groups for its names, creating (with no targets,
/// or the targets a retime export carries) those history does not know yet.
/// The Session context asks; the composition root answers with a bridge
/// over the Group context.
public protocol ImportGroupDirectory: Sendable {
    /// For each request, in order: the group named so (case-insensitively)
    /// and whether it was created now, or why no group can have that name.
    /// Every missing group is created in one step, however many there are;
    /// a created group takes its `preferredId` when given and free.
    func groups(for requests: [ImportGroupRequest]) async throws -> [Result<(id: GroupID, created: Bool), GroupError>]
}

/// A group an import needs, by name.
public struct ImportGroupRequest: Sendable, Equatable {
    public var name: String
    public var preferredId: GroupID?
    public var targets: [Target]
    /// When a created group was first made (a backup keeps it); nil: now.
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(name: String, preferredId: GroupID? = nil, targets: [Target] = [], createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.name = name
        self.preferredId = preferredId
        self.targets = targets
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
