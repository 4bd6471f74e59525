import FoundationEssentials
import RetimeShared

/// `retime group set-allowance NAME DURATION|none`: how long a day the
/// group's block may be lifted on request. Raising it (from none, or to
/// more) is weakening the group: refused while a strict session on it
/// runs, as losing a target is; lowering it or removing it never is.
public struct SetAllowanceUseCase: Sendable {
    /// The longest daily allowance: a day.
    public static let longest: TimeInterval = 86_400

    private let groups: any GroupRepository
    private let lock: any GroupLock
    private let clock: any Clock
    private let dataLock: any DataLock

    public init(groups: any GroupRepository, lock: any GroupLock, clock: any Clock, dataLock: any DataLock) {
        self.groups = groups
        self.lock = lock
        self.clock = clock
        self.dataLock = dataLock
    }

    /// Sets `name`'s allowance to `allowance` (nil: none); returns the group.
    public func execute(group name: String, allowance: TimeInterval?) async throws -> Group {
        if let allowance, !(allowance >= 1 && allowance <= Self.longest) {
            throw GroupError.invalidAllowance("give a duration from 1s to 24h, or none")
        }
        return try await dataLock.exclusively {
            var group = try await groups.existing(named: name)
            let raising = (allowance ?? 0) > (group.allowance ?? 0)
            if raising, let until = try await lock.lockedUntil(group.id) {
                throw GroupError.allowanceLocked(name: group.name.rawValue, until: until)
            }
            group.allowance = allowance
            group.updatedAt = clock.now()
            try await groups.update(group)
            return group
        }
    }
}
