import Domain

/// Answers an import's "which group is this name?" from the Group context's
/// repository, creating the group when it is missing.
public struct GroupRepositoryImportDirectory: ImportGroupDirectory {
    private let groups: any GroupRepository
    private let clock: any Domain.Clock

    public init(groups: any GroupRepository, clock: any Domain.Clock) {
        self.groups = groups
        self.clock = clock
    }

    public func group(named name: String, preferredId: GroupID?, targets: [Target]) async throws -> (id: GroupID, created: Bool) {
        if let existing = try await groups.group(named: name) { return (existing.id, false) }
        let free = try await preferredId.asyncFilter { try await groups.group(id: $0) == nil }
        let group = Group(id: free ?? GroupID(), name: try GroupName(name), targets: targets, createdAt: clock.now())
        do {
            try await groups.insert(group)
            return (group.id, true)
        } catch GroupError.alreadyExists {
            // Another process created it meanwhile: use theirs.
            guard let existing = try await groups.group(named: name) else { throw GroupError.alreadyExists(name: name) }
            return (existing.id, false)
        }
    }
}

private extension Optional where Wrapped: Sendable {
    func asyncFilter(_ keep: (Wrapped) async throws -> Bool) async rethrows -> Wrapped? {
        guard let value = self, try await keep(value) else { return nil }
        return value
    }
}
