import RetimeShared

/// Deletes a group, unless the active session or a schedule uses it; the
/// refusal names what does.
public struct DeleteGroupUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let override: any StrictOverride
    private let usage: any GroupUsageQuery
    private let dataLock: any DataLock

    public init(groups: any GroupRepository, lock: any GroupLock, override: any StrictOverride, usage: any GroupUsageQuery,
                dataLock: any DataLock) {
        self.groups = groups
        self.lock = lock
        self.override = override
        self.usage = usage
        self.dataLock = dataLock
    }

    /// Returns the group as it was before deletion.
    @discardableResult
    public func execute(name: String, passcode: Passcode? = nil) async throws -> Group {
        // The usage check and the deletion under one lock: a session or a
        // schedule cannot take the group up in between.
        try await dataLock.exclusively {
            let group = try await groups.existing(named: name)
            try await lock.check(group, "group.delete", passcode: passcode, override: override)
            let usages = try await usage.usages(of: group.id)
            guard usages.isEmpty else { throw GroupError.inUse(name: group.name.rawValue, by: usages) }
            try await groups.delete(id: group.id)
            return group
        }
    }
}
