/// How an import finds the group for a name, creating it (with no targets,
/// or the targets a retime export carries) when history does not know it
/// yet. The Session context asks; the composition root answers with a
/// bridge over the Group context.
public protocol ImportGroupDirectory: Sendable {
    /// The id of the group named `name` (case-insensitively), and whether it
    /// was created now. A created group takes `preferredId` when given and free.
    func group(named name: String, preferredId: GroupID?, targets: [Target]) async throws -> (id: GroupID, created: Bool)
}
