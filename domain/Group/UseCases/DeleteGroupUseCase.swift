/// Deletes a group, unless the active session or a schedule uses it; the
/// refusal names what does.
public struct DeleteGroupUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let usage: any GroupUsageQuery

    public init(groups: any GroupRepository, lock: any GroupLock, usage: any GroupUsageQuery) {
        self.groups = groups
        self.lock = lock
        self.usage = usage
    }

    /// Returns the group as it was before deletion.
    @discardableResult
    public func execute(name: String) async throws -> Group {
        let group = try await groups.existing(named: name)
        if let until = try await lock.lockedUntil(group.id) { throw GroupError.locked(name: group.name.rawValue, until: until) }
        let usages = try await usage.usages(of: group.id)
        guard usages.isEmpty else { throw GroupError.inUse(name: group.name.rawValue, by: usages) }
        try await groups.delete(id: group.id)
        return group
    }
}
