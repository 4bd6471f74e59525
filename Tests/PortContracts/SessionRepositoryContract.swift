import Domain

/// The rules every `SessionRepository` keeps: compare-and-swap on one slot.
public enum SessionRepositoryContract {
    public typealias Factory = @Sendable () async throws -> any SessionRepository

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("an empty slot holds nothing") { make in
            try require(try await make().current() == nil, "current() of a new repository")
        },
        ContractCheck("a stored session reads back equal in every field") { make in
            let repository = try await make()
            let session = try Fixtures.session(strict: true).pausing(at: Fixtures.instant(30))
            try require(try await repository.replace(nil, with: session), "replace(nil, with:) on an empty slot")
            try requireEqual(try await repository.current(), session, "current()")
        },
        ContractCheck("replace refuses when the slot does not hold the expected value") { make in
            let repository = try await make()
            let first = Fixtures.session()
            _ = try await repository.replace(nil, with: first)
            try require(!(try await repository.replace(nil, with: Fixtures.session())), "replace(nil) over a session")
            try require(!(try await repository.replace(Fixtures.session(), with: nil)), "replace of another session")
            try requireEqual(try await repository.current(), first, "slot after refusals")
        },
        ContractCheck("a stale copy of the session is refused after it changed") { make in
            let repository = try await make()
            let session = Fixtures.session()
            let paused = try session.pausing(at: Fixtures.instant(10))
            _ = try await repository.replace(nil, with: session)
            try require(try await repository.replace(session, with: paused), "replace with the current value")
            try require(!(try await repository.replace(session, with: nil)), "replace with the stale value")
            try requireEqual(try await repository.current(), paused, "slot")
        },
        ContractCheck("replace with nil empties the slot") { make in
            let repository = try await make()
            let ended = Fixtures.session().ending(at: Fixtures.instant(100), outcome: .stopped)
            _ = try await repository.replace(nil, with: ended)
            try require(try await repository.replace(ended, with: nil), "replace(ended, with: nil)")
            try require(try await repository.current() == nil, "slot after clearing")
        },
        ContractCheck("concurrent starts: exactly one wins the empty slot") { make in
            let repository = try await make()
            let candidates = (0..<20).map { Fixtures.session(startingAt: Double($0)) }
            let winners = await withTaskGroup(of: Session?.self) { tasks in
                for candidate in candidates {
                    tasks.addTask { (try? await repository.replace(nil, with: candidate)) == true ? candidate : nil }
                }
                return await tasks.reduce(into: [Session]()) { if let won = $1 { $0.append(won) } }
            }
            try requireEqual(winners.count, 1, "winners")
            try requireEqual(try await repository.current(), winners.first, "slot holds the winner")
        },
        ContractCheck("concurrent endings of one session: exactly one wins") { make in
            let repository = try await make()
            let session = Fixtures.session()
            _ = try await repository.replace(nil, with: session)
            let wins = await withTaskGroup(of: Bool.self) { tasks in
                for index in 0..<20 {
                    let ended = session.ending(at: Fixtures.instant(Double(100 + index)), outcome: .stopped)
                    tasks.addTask { (try? await repository.replace(session, with: ended)) == true }
                }
                return await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try requireEqual(wins, 1, "successful endings")
        },
    ]
}
