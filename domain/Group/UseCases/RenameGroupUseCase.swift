/// Gives a group a new name; its id, and so every reference to it, stays.
public struct RenameGroupUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let clock: any Clock

    public init(groups: any GroupRepository, lock: any GroupLock, clock: any Clock) {
        self.groups = groups
        self.lock = lock
        self.clock = clock
    }

    public func execute(name: String, to newName: String) async throws -> Group {
        let newName = try GroupName(newName)
        var group = try await groups.existing(named: name)
        if let until = try await lock.lockedUntil(group.id) { throw GroupError.locked(name: group.name.rawValue, until: until) }
        if let holder = try await groups.group(named: newName.rawValue), holder.id != group.id {
            throw GroupError.alreadyExists(name: holder.name.rawValue)
        }
        group.name = newName
        group.updatedAt = clock.now()
        try await groups.update(group)
        return group
    }
}

extension GroupRepository {
    /// The group named `name`, or `GroupError.notFound`.
    func existing(named name: String) async throws -> Group {
        guard let group = try await group(named: name) else { throw GroupError.notFound(name: name) }
        return group
    }
}
