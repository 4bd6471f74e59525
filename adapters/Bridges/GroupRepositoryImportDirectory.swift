import Domain

/// Answers an import's "which groups are these names?" from the Group
/// context's repository, creating the missing ones in one batch.
public struct GroupRepositoryImportDirectory: ImportGroupDirectory {
    private let groups: any GroupRepository
    private let clock: any RetimeShared.Clock

    public init(groups: any GroupRepository, clock: any RetimeShared.Clock) {
        self.groups = groups
        self.clock = clock
    }

    public func groups(for requests: [ImportGroupRequest]) async throws -> [Result<(id: GroupID, created: Bool), GroupError>] {
        let existing = try await groups.all()
        let byName = Dictionary(existing.map { ($0.name.comparisonKey, $0.id) }, uniquingKeysWith: { first, _ in first })
        var ids = Set(existing.map(\.id))
        let now = clock.now()
        var answers: [Result<(id: GroupID, created: Bool), GroupError>] = []
        var missing: [(answer: Int, group: Group)] = []
        for request in requests {
            let name: GroupName
            switch Self.name(request.name) {
            case .failure(let error):
                answers.append(.failure(error))
                continue
            case .success(let valid): name = valid
            }
            if let id = byName[name.comparisonKey] {
                answers.append(.success((id, false)))
                continue
            }
            let id = request.preferredId.flatMap { ids.contains($0) ? nil : $0 } ?? GroupID()
            ids.insert(id)
            missing.append((answers.count, Group(id: id, name: name, targets: request.targets, createdAt: request.createdAt ?? now,
                                                     updatedAt: request.updatedAt)))
            answers.append(.success((id, true)))
        }
        // A group another process created meanwhile is used, not doubled.
        let stored = try await groups.insert(contentsOf: missing.map(\.group))
        for (index, entry) in missing.enumerated() where stored[index].id != entry.group.id {
            answers[entry.answer] = .success((stored[index].id, false))
        }
        return answers
    }

    private static func name(_ text: String) -> Result<GroupName, GroupError> {
        do { return .success(try GroupName(text)) } catch { return .failure(error) }
    }
}
