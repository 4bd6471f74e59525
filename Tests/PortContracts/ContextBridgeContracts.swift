import Domain
import Foundation

/// The rules of the ports through which one context asks another.
public enum SessionGroupLookupContract {
    /// Makes a lookup that knows exactly `groups`.
    public typealias Factory = @Sendable (_ groups: [Group]) async throws -> any SessionGroupLookup

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a group is found by name in any case and by id, with its targets") { make in
            let group = Fixtures.group("Deep Work", targets: ["example.com", "app:slack"])
            let lookup = try await make([group, Fixtures.group("Play")])
            let expected = BlockList(groupId: group.id, name: "Deep Work", targets: group.targets)
            try requireEqual(try await lookup.blockList(named: "deep WORK"), expected, "by name")
            try requireEqual(try await lookup.blockList(id: group.id), expected, "by id")
            try requireEqual(try await lookup.groupName(id: group.id), "Deep Work", "name by id")
            try requireEqual(try await lookup.groupID(named: "DEEP work"), group.id, "id by name")
        },
        ContractCheck("an unknown group is nil, not an error") { make in
            let lookup = try await make([Fixtures.group("Work")])
            try require(try await lookup.blockList(named: "nope") == nil, "unknown name")
            try require(try await lookup.blockList(id: GroupID()) == nil, "unknown id")
            try require(try await lookup.groupName(id: GroupID()) == nil, "unknown id's name")
            try require(try await lookup.groupID(named: "nope") == nil, "unknown name's id")
        },
        ContractCheck("every group is named by id, and given whole, each once") { make in
            let groups = [Fixtures.group("Deep Work", targets: ["example.com"]), Fixtures.group("Play", targets: ["app:steam"])]
            let lookup = try await make(groups)
            try requireEqual(try await lookup.groupNames(), [groups[0].id: "Deep Work", groups[1].id: "Play"], "names")
            let all = try await lookup.allGroups().sorted { $0.name.rawValue < $1.name.rawValue }
            try requireEqual(all, groups, "groups")
        },
        ContractCheck("with no groups, no names and no groups") { make in
            let lookup = try await make([])
            try requireEqual(try await lookup.groupNames(), [:], "names")
            try requireEqual(try await lookup.allGroups(), [], "groups")
        },
    ]
}

public enum GroupUsageQueryContract {
    /// Makes a query over a world whose active session, if any, uses the
    /// group given, whose schedules are those given, and whose clock reads `now`.
    public typealias Factory = @Sendable (_ activeSessionGroup: GroupID?, _ schedules: [Schedule], _ now: Date) async throws
        -> any GroupUsageQuery

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func scheduled(_ groups: [String: GroupID]) -> [Schedule] {
        groups.map { Fixtures.schedule($0.key, group: $0.value) }
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a group nothing uses has no usages") { make in
            let query = try await make(nil, scheduled(["mornings": GroupID()]), now)
            try requireEqual(try await query.usages(of: GroupID()), [], "usages")
        },
        ContractCheck("the active session's group is in use by it; other groups are not") { make in
            let used = GroupID()
            let query = try await make(used, [], now)
            let usages = try await query.usages(of: used)
            try requireEqual(usages.map(\.kind), [.activeSession], "usages of the session's group")
            try requireEqual(try await query.usages(of: GroupID()), [], "usages of another group")
        },
        ContractCheck("every schedule of a group is named among its usages") { make in
            let used = GroupID()
            let query = try await make(used, scheduled(["mornings": used, "evenings": used, "other": GroupID()]), now)
            let usages = try await query.usages(of: used)
            try requireEqual(Set(usages), [.activeSession(usages.first { $0.kind == .activeSession }?.name ?? ""),
                                           .schedule("mornings"), .schedule("evenings")], "usages")
        },
        ContractCheck("a schedule whose delayed removal has taken effect uses nothing, stored or not; one still waiting, or disabled, still does") { make in
            let used = GroupID()
            var removed = Fixtures.schedule("removed", group: used), waiting = Fixtures.schedule("waiting", group: used)
            var disabled = Fixtures.schedule("disabled", group: used)
            removed.pending = PendingScheduleChange(kind: .remove, effectiveAt: now)
            waiting.pending = PendingScheduleChange(kind: .remove, effectiveAt: now.addingTimeInterval(1))
            disabled.pending = PendingScheduleChange(kind: .disable, effectiveAt: now.addingTimeInterval(-60))
            let query = try await make(nil, [removed, waiting, disabled], now)
            try requireEqual(Set(try await query.usages(of: used)), [.schedule("waiting"), .schedule("disabled")], "usages")
        },
    ]
}

/// The rules of `GroupLock` and `StrictSessionQuery`, the ports through which
/// a strict session forbids weakening its group and changing the shield.
public enum StrictSessionLockContract {
    /// What the world holds: the current session, if any, seen at `now`.
    public struct World: Sendable {
        public var session: Session?
        public var now: Date
    }

    public typealias Factory = @Sendable (World) async throws -> any GroupLock & StrictSessionQuery

    static func world(strict: Bool, ended: Bool = false, group: GroupID = GroupID()) -> World {
        var session = Fixtures.session(group: group, strict: strict)
        if ended { session = session.ending(at: Fixtures.instant(100), outcome: .stopped) }
        return World(session: session, now: Fixtures.instant(60))
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a running strict session locks its group, until its planned end, and no other") { make in
            let group = GroupID()
            let lock = try await make(world(strict: true, group: group))
            try requireEqual(try await lock.lockedUntil(group), Fixtures.instant(1_500), "its group")
            try requireEqual(try await lock.lockedUntil(GroupID()), Date?.none, "another group")
            try requireEqual(try await lock.strictUntil(), Fixtures.instant(1_500), "strict until")
        },
        ContractCheck("no lock without a session, for a session that is not strict, or one that has ended") { make in
            for world in [World(session: nil, now: Fixtures.instant(0)), world(strict: false), world(strict: true, ended: true)] {
                let lock = try await make(world)
                try requireEqual(try await lock.strictUntil(), Date?.none, "strict until")
                try requireEqual(try await lock.lockedUntil(world.session?.groupId ?? GroupID()), Date?.none, "group lock")
            }
        },
        ContractCheck("past the planned end by both clocks, the lock is gone") { make in
            var world = world(strict: true)
            world.now = Fixtures.instant(2_000)
            let lock = try await make(world)
            try requireEqual(try await lock.strictUntil(), Date?.none, "strict until")
        },
    ]
}
