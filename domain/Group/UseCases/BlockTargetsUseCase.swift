/// Adds targets to a group. Targets it already blocks are left as they are.
public struct BlockTargetsUseCase: Sendable {
    private let groups: any GroupRepository
    private let clock: any Clock
    private let dataLock: any DataLock

    public init(groups: any GroupRepository, clock: any Clock, dataLock: any DataLock) {
        self.groups = groups
        self.clock = clock
        self.dataLock = dataLock
    }

    public func execute(group name: String, targets: [String]) async throws -> Group {
        let parsed = try targets.map { text throws(GroupError) in try Target(parsing: text) }
        // Read and written under the data lock: twenty processes adding to
        // one group at once keep all their targets.
        return try await dataLock.exclusively {
            var group = try await groups.existing(named: name)
            guard !group.add(parsed).isEmpty else { return group }
            group.updatedAt = clock.now()
            try await groups.update(group)
            return group
        }
    }
}
