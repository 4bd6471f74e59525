import RetimeShared

/// Adds targets to a group. Targets it already blocks are left as they are;
/// a block raised from the group (a running session's) follows at once.
public struct BlockTargetsUseCase: Sendable {
    private let groups: any GroupRepository
    private let clock: any Clock
    private let dataLock: any DataLock
    private let observer: (any GroupTargetsObserver)?

    public init(groups: any GroupRepository, clock: any Clock, dataLock: any DataLock, observer: (any GroupTargetsObserver)? = nil) {
        self.groups = groups
        self.clock = clock
        self.dataLock = dataLock
        self.observer = observer
    }

    public func execute(group name: String, targets: [String]) async throws -> Group {
        let parsed = try targets.map { text throws(GroupError) in try Target(parsing: text) }
        // Read and written under the data lock: twenty processes adding to
        // one group at once keep all their targets.
        let group = try await dataLock.exclusively {
            var group = try await groups.existing(named: name)
            guard !group.add(parsed).isEmpty else { return group }
            group.updatedAt = clock.now()
            try await groups.update(group)
            return group
        }
        try await observer?.targetsChanged(of: group.id)
        return group
    }
}
