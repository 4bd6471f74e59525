import Domain

/// The rules every `ScheduleRepository` keeps. Each check gets an empty one.
public enum ScheduleRepositoryContract {
    public typealias Factory = @Sendable () async throws -> any ScheduleRepository

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a schedule reads back equal, by name in any case, in name order") { make in
            let repository = try await make()
            let mornings = Fixtures.schedule("Mornings"), evenings = Fixtures.schedule("evenings", from: "22:00", to: "06:00")
            try await repository.insert(mornings)
            try await repository.insert(evenings)
            try requireEqual(try await repository.all(), [evenings, mornings], "all()")
            try requireEqual(try await repository.schedule(named: "MORNINGS"), mornings, "by name")
            try require(try await repository.schedule(named: "noon") == nil, "unknown name")
        },
        ContractCheck("names are unique ignoring case; the error names the holder") { make in
            let repository = try await make()
            try await repository.insert(Fixtures.schedule("Mornings"))
            try await requireThrows(ScheduleError.alreadyExists(name: "Mornings"), "insert of MORNINGS") {
                try await repository.insert(Fixtures.schedule("MORNINGS"))
            }
            try requireEqual(try await repository.all().count, 1, "count")
        },
        ContractCheck("update replaces by id; delete removes; unknown ids are notFound") { make in
            let repository = try await make()
            var schedule = Fixtures.schedule("Mornings")
            try await repository.insert(schedule)
            schedule.enabled = false
            schedule.weekdays = [.sat]
            try await repository.update(schedule)
            try requireEqual(try await repository.schedule(named: "mornings"), schedule, "updated")
            try await requireThrows(ScheduleError.notFound(name: "ghost"), "update of unknown") {
                try await repository.update(Fixtures.schedule("ghost"))
            }
            try await repository.delete(id: schedule.id)
            try requireEqual(try await repository.all(), [], "after delete")
            var threw = false
            do { try await repository.delete(id: schedule.id) } catch let error as ScheduleError { threw = error.code == "schedule.notFound" }
            try require(threw, "deleting twice throws schedule.notFound")
        },
        ContractCheck("concurrent inserts of one name: exactly one succeeds") { make in
            let repository = try await make()
            let successes = await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<20 { tasks.addTask { (try? await repository.insert(Fixtures.schedule("race"))) != nil } }
                return await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try requireEqual(successes, 1, "successful inserts")
        },
    ]
}
