import RetimeShared

/// Removes targets from a group; every one must be in it, so a typo is
/// reported rather than silently ignored. A block raised from the group
/// follows at once.
public struct UnblockTargetsUseCase: Sendable {
    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let override: any StrictOverride
    private let clock: any Clock
    private let dataLock: any DataLock
    private let observer: (any GroupTargetsObserver)?

    public init(groups: any GroupRepository, lock: any GroupLock, override: any StrictOverride, clock: any Clock,
                dataLock: any DataLock, observer: (any GroupTargetsObserver)? = nil) {
        self.groups = groups
        self.lock = lock
        self.override = override
        self.clock = clock
        self.dataLock = dataLock
        self.observer = observer
    }

    public func execute(group name: String, targets: [String], passcode: Passcode? = nil) async throws -> Group {
        let parsed = try targets.map { text throws(GroupError) in try Target(parsing: text) }
        // Under the data lock, the strict check and the write are one step: a
        // strict session starting meanwhile sees the group before or after.
        let group = try await dataLock.exclusively {
            var group = try await groups.existing(named: name)
            try await lock.check(group, "group.unblock", passcode: passcode, override: override)
            // A target another device removed from the group while a strict
            // session here still blocks it is released all the same.
            let gone = parsed.filter { !group.targets.contains($0) }
            let held = gone.isEmpty ? [] : try await lock.held(group.id)
            try group.remove(parsed.filter { !held.contains($0) || group.targets.contains($0) })
            if gone.count < parsed.count {
                group.updatedAt = clock.now()
                try await groups.update(group)
            }
            try await lock.released(parsed, of: group.id)
            return group
        }
        try await observer?.targetsChanged(of: group.id)
        return group
    }
}
