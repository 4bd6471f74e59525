import Domain

/// The rules every `DataLock` keeps.
public enum DataLockContract {
    public typealias Factory = @Sendable () async throws -> any DataLock

    struct Failure: Error, Equatable {}

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a body's result comes back; its error passes through and frees the lock") { make in
            let lock = try await make()
            try requireEqual(try await lock.exclusively { 42 }, 42, "the body's result")
            try await requireThrows(Failure(), "a throwing body") { try await lock.exclusively { throw Failure() } }
            try requireEqual(try await lock.exclusively { "again" }, "again", "taken again after an error")
        },
        ContractCheck("a body may take it again (a use case calling another)") { make in
            let lock = try await make()
            let inner = try await lock.exclusively { try await lock.exclusively { try await lock.exclusively { 7 } } }
            try requireEqual(inner, 7, "the innermost result")
        },
        ContractCheck("holders never overlap: eight tasks, each reading then writing a shared count") { make in
            let lock = try await make()
            let shared = Counter()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<8 {
                    tasks.addTask {
                        for _ in 0..<5 {
                            try await lock.exclusively {
                                let seen = shared.value
                                try await Task.sleep(nanoseconds: 1_000_000)   // another holder would slip in here
                                shared.value = seen + 1
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            try requireEqual(shared.value, 40, "increments kept")
        },
    ]

    /// A count the check shares between tasks; the lock under test is what
    /// keeps its read-modify-write whole.
    final class Counter: @unchecked Sendable {
        var value = 0
    }
}
