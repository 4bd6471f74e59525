import Domain

/// The rules every `IntervalLedger` keeps.
public enum IntervalLedgerContract {
    public typealias Factory = @Sendable () async throws -> any IntervalLedger

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a key is claimed once; other keys are independent") { make in
            let ledger = try await make()
            try require(try await ledger.claim("s/2026-11-23/intervalDidStart", at: Fixtures.instant(0)), "first claim")
            try require(!(try await ledger.claim("s/2026-11-23/intervalDidStart", at: Fixtures.instant(1))), "second claim")
            try require(try await ledger.claim("s/2026-11-23/intervalDidEnd", at: Fixtures.instant(2)), "another key")
        },
        ContractCheck("forgetting drops only what was claimed before the instant") { make in
            let ledger = try await make()
            _ = try await ledger.claim("old", at: Fixtures.instant(0))
            _ = try await ledger.claim("new", at: Fixtures.instant(100))
            try await ledger.forget(before: Fixtures.instant(50))
            try require(try await ledger.claim("old", at: Fixtures.instant(200)), "old key is claimable again")
            try require(!(try await ledger.claim("new", at: Fixtures.instant(200))), "new key is still claimed")
        },
        ContractCheck("the watermark starts empty, only moves forward, and survives forgetting") { make in
            let ledger = try await make()
            try require(try await ledger.watermark() == nil, "watermark of a new ledger")
            try await ledger.advanceWatermark(to: Fixtures.instant(100))
            try await ledger.advanceWatermark(to: Fixtures.instant(50))
            try requireEqual(try await ledger.watermark(), Fixtures.instant(100), "watermark after moving back")
            try await ledger.forget(before: Fixtures.instant(1_000))
            try requireEqual(try await ledger.watermark(), Fixtures.instant(100), "watermark after forgetting")
        },
        ContractCheck("of twenty concurrent claims exactly one wins") { make in
            let ledger = try await make()
            let wins = await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<20 { tasks.addTask { (try? await ledger.claim("race", at: Fixtures.instant(0))) == true } }
                return await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try requireEqual(wins, 1, "winning claims")
        },
    ]
}
