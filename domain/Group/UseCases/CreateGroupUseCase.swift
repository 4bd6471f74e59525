import RetimeShared

/// Creates a named group, optionally with its first targets.
public struct CreateGroupUseCase: Sendable {
    private let groups: any GroupRepository
    private let clock: any Clock

    public init(groups: any GroupRepository, clock: any Clock) {
        self.groups = groups
        self.clock = clock
    }

    public func execute(name: String, targets: [String] = []) async throws -> Group {
        let name = try GroupName(name)
        let parsed = try targets.map { text throws(GroupError) in try Target(parsing: text) }
        if let holder = try await groups.group(named: name.rawValue) {
            throw GroupError.alreadyExists(name: holder.name.rawValue)
        }
        // Named after its name, not at random: the same name made on another
        // device before the two saw each other is then this same group.
        let id = try await GroupID.made(as: name) { try await groups.name(of: $0) == nil }
        let group = Group(id: id, name: name, targets: parsed, createdAt: clock.now())
        try await groups.insert(group)
        return group
    }
}
