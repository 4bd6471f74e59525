/// Removes targets from a group; every one must be in it, so a typo is
/// reported rather than silently ignored.
public struct UnblockTargetsUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let override: any StrictOverride
    private let clock: any Clock

    public init(groups: any GroupRepository, lock: any GroupLock, override: any StrictOverride, clock: any Clock) {
        self.groups = groups
        self.lock = lock
        self.override = override
        self.clock = clock
    }

    public func execute(group name: String, targets: [String], passcode: Passcode? = nil) async throws -> Group {
        let parsed = try targets.map { text throws(GroupError) in try Target(parsing: text) }
        var group = try await groups.existing(named: name)
        try await lock.check(group, "group.unblock", passcode: passcode, override: override)
        try group.remove(parsed)
        group.updatedAt = clock.now()
        try await groups.update(group)
        return group
    }
}
