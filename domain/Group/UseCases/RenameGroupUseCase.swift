import RetimeShared

/// Gives a group a new name; its id, and so every reference to it, stays.
public struct RenameGroupUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let override: any StrictOverride
    private let clock: any Clock
    private let dataLock: any DataLock

    public init(groups: any GroupRepository, lock: any GroupLock, override: any StrictOverride, clock: any Clock,
                dataLock: any DataLock) {
        self.groups = groups
        self.lock = lock
        self.override = override
        self.clock = clock
        self.dataLock = dataLock
    }

    public func execute(name: String, to newName: String, passcode: Passcode? = nil) async throws -> Group {
        let newName = try GroupName(newName)
        return try await dataLock.exclusively {
            var group = try await groups.existing(named: name)
            try await lock.check(group, "group.rename", passcode: passcode, override: override)
            if let holder = try await groups.group(named: newName.rawValue), holder.id != group.id {
                throw GroupError.alreadyExists(name: holder.name.rawValue)
            }
            group.name = newName
            group.updatedAt = clock.now()
            try await groups.update(group)
            return group
        }
    }
}

extension GroupRepository {
    /// The group named `name`, or `GroupError.notFound`.
    func existing(named name: String) async throws -> Group {
        guard let group = try await group(named: name) else { throw GroupError.notFound(name: name) }
        return group
    }
}
