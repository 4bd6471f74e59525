import Domain

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
        },
        ContractCheck("an unknown group is nil, not an error") { make in
            let lookup = try await make([Fixtures.group("Work")])
            try require(try await lookup.blockList(named: "nope") == nil, "unknown name")
            try require(try await lookup.blockList(id: GroupID()) == nil, "unknown id")
        },
    ]
}

public enum GroupUsageQueryContract {
    /// Makes a query over a world whose active session, if any, uses the
    /// group given, and whose schedules use the groups given by name.
    public typealias Factory = @Sendable (_ activeSessionGroup: GroupID?, _ schedules: [String: GroupID]) async throws
        -> any GroupUsageQuery

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a group nothing uses has no usages") { make in
            let query = try await make(nil, ["mornings": GroupID()])
            try requireEqual(try await query.usages(of: GroupID()), [], "usages")
        },
        ContractCheck("the active session's group is in use by it; other groups are not") { make in
            let used = GroupID()
            let query = try await make(used, [:])
            let usages = try await query.usages(of: used)
            try requireEqual(usages.map(\.kind), [.activeSession], "usages of the session's group")
            try requireEqual(try await query.usages(of: GroupID()), [], "usages of another group")
        },
        ContractCheck("every schedule of a group is named among its usages") { make in
            let used = GroupID()
            let query = try await make(used, ["mornings": used, "evenings": used, "other": GroupID()])
            let usages = try await query.usages(of: used)
            try requireEqual(Set(usages), [.activeSession(usages.first { $0.kind == .activeSession }?.name ?? ""),
                                           .schedule("mornings"), .schedule("evenings")], "usages")
        },
    ]
}
