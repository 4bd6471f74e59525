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
        let group = Group(name: name, targets: parsed, createdAt: clock.now())
        try await groups.insert(group)
        return group
    }
}
