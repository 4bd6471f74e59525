import Domain

/// The rules every `GroupRepository` keeps. Each check gets a fresh, empty
/// repository from the factory.
public enum GroupRepositoryContract {
    public typealias Factory = @Sendable () async throws -> any GroupRepository

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("an empty repository holds nothing") { make in
            let repository = try await make()
            try requireEqual(try await repository.all(), [], "all()")
            try require(try await repository.group(named: "work") == nil, "group(named:) on empty")
            try require(try await repository.group(id: GroupID()) == nil, "group(id:) on empty")
        },
        ContractCheck("an inserted group reads back equal, by id and by name") { make in
            let repository = try await make()
            let group = Fixtures.group("Work", targets: ["example.com", "bücher.de", "app:Slack"])
            try await repository.insert(group)
            try requireEqual(try await repository.group(id: group.id), group, "group(id:)")
            try requireEqual(try await repository.group(named: "Work"), group, "group(named:)")
            try requireEqual(try await repository.all(), [group], "all()")
        },
        ContractCheck("a group's name is read by its id: nil for an unknown id, the new name after a rename, nil after a delete") { make in
            let repository = try await make()
            var group = Fixtures.group("Work")
            try await repository.insert(group)
            try await repository.insert(Fixtures.group("Play"))
            try requireEqual(try await repository.name(of: group.id), "Work", "name(of:)")
            try requireEqual(try await repository.id(named: "WORK"), group.id, "id(named:)")
            try require(try await repository.id(named: "nothing") == nil, "id(named:) of an unknown name")
            let play = try await repository.id(named: "Play")
            try requireEqual(try await repository.names(), [group.id: "Work", play!: "Play"], "names()")
            try require(try await repository.name(of: GroupID()) == nil, "name(of:) of an unknown id")
            group.name = try GroupName("Focus")
            try await repository.update(group)
            try requireEqual(try await repository.name(of: group.id), "Focus", "name(of:) after a rename")
            try requireEqual(try await repository.names()[group.id], "Focus", "names() after a rename")
            try await repository.delete(id: group.id)
            try require(try await repository.name(of: group.id) == nil, "name(of:) after a delete")
        },
        ContractCheck("names are looked up case-insensitively") { make in
            let repository = try await make()
            let group = Fixtures.group("Deep Work")
            try await repository.insert(group)
            try requireEqual(try await repository.group(named: "DEEP WORK")?.id, group.id, "upper case")
            try requireEqual(try await repository.group(named: "deep work")?.id, group.id, "lower case")
            try require(try await repository.group(named: "deep") == nil, "a prefix is not a match")
        },
        ContractCheck("among several groups, each is found by its exact name and by another case") { make in
            let repository = try await make()
            let groups = ["Work", "Play", "Straße", "Ωmega"].map { Fixtures.group($0) }
            for group in groups { try await repository.insert(group) }
            for group in groups {
                let name = group.name.rawValue
                try requireEqual(try await repository.group(named: name)?.id, group.id, "exact \(name)")
                try requireEqual(try await repository.group(named: name.uppercased())?.id, group.id, "upper \(name)")
                try requireEqual(try await repository.group(named: " \(name.lowercased()) ")?.id, group.id, "spaced lower \(name)")
            }
        },
        ContractCheck("a name taken in another case cannot be inserted") { make in
            let repository = try await make()
            try await repository.insert(Fixtures.group("Work"))
            try await requireThrows(GroupError.alreadyExists(name: "Work"), "insert of WORK (the error names the existing group)") {
                try await repository.insert(Fixtures.group("WORK"))
            }
            try requireEqual(try await repository.all().map(\.name.rawValue), ["Work"], "names after refusal")
        },
        ContractCheck("all() is ordered by name, case-insensitively") { make in
            let repository = try await make()
            for name in ["gamma", "Alpha", "beta"] { try await repository.insert(Fixtures.group(name)) }
            try requireEqual(try await repository.all().map(\.name.rawValue), ["Alpha", "beta", "gamma"], "order")
        },
        ContractCheck("update replaces the group with the same id") { make in
            let repository = try await make()
            var group = Fixtures.group("Work")
            try await repository.insert(group)
            group.name = try GroupName("Focus")
            group.add([try Target(parsing: "news.example.org")])
            group.updatedAt = Fixtures.instant(60)
            try await repository.update(group)
            try requireEqual(try await repository.group(id: group.id), group, "updated group")
            try require(try await repository.group(named: "Work") == nil, "old name no longer resolves")
            try requireEqual(try await repository.all().count, 1, "count")
        },
        ContractCheck("a group may be renamed to another case of its own name") { make in
            let repository = try await make()
            var group = Fixtures.group("work")
            try await repository.insert(group)
            group.name = try GroupName("WORK")
            try await repository.update(group)
            try requireEqual(try await repository.group(named: "work")?.name.rawValue, "WORK", "renamed")
        },
        ContractCheck("update refuses another group's name and an unknown id") { make in
            let repository = try await make()
            try await repository.insert(Fixtures.group("Work"))
            var other = Fixtures.group("Play")
            try await repository.insert(other)
            other.name = try GroupName("work")
            try await requireThrows(GroupError.alreadyExists(name: "Work"), "update to a taken name") {
                try await repository.update(other)
            }
            try await requireThrows(GroupError.notFound(name: "Ghost"), "update of an unknown group") {
                try await repository.update(Fixtures.group("Ghost"))
            }
            try requireEqual(try await repository.all().map(\.name.rawValue), ["Play", "Work"], "unchanged")
        },
        ContractCheck("delete removes the group; deleting an unknown id is an error") { make in
            let repository = try await make()
            let group = Fixtures.group("Work")
            try await repository.insert(group)
            try await repository.insert(Fixtures.group("Play"))
            try await repository.delete(id: group.id)
            try require(try await repository.group(id: group.id) == nil, "deleted group still found")
            try requireEqual(try await repository.all().map(\.name.rawValue), ["Play"], "the other group stays")
            var threw = false
            do { try await repository.delete(id: group.id) } catch let error as GroupError {
                threw = error.code == "group.notFound"
            }
            try require(threw, "deleting twice throws group.notFound")
        },
        ContractCheck("concurrent inserts of one name: exactly one succeeds") { make in
            let repository = try await make()
            let successes = await withTaskGroup(of: Bool.self) { tasks in
                for index in 0..<20 {
                    tasks.addTask { (try? await repository.insert(Fixtures.group(index % 2 == 0 ? "race" : "RACE"))) != nil }
                }
                return await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try requireEqual(successes, 1, "successful inserts")
            try requireEqual(try await repository.all().count, 1, "groups stored")
        },
        ContractCheck("a batch insert adds the free names and answers each with the group holding its name") { make in
            let repository = try await make()
            let existing = Fixtures.group("Work")
            try await repository.insert(existing)
            let fresh = Fixtures.group("Reading"), clash = Fixtures.group("WORK"), twin = Fixtures.group("reading")
            let answers = try await repository.insert(contentsOf: [fresh, clash, twin])
            try requireEqual(answers, [fresh, existing, fresh], "the holders, in order")
            try requireEqual(try await repository.all(), [fresh, existing], "groups stored")
            try requireEqual(try await repository.insert(contentsOf: []), [], "an empty batch")
        },
    ]
}
