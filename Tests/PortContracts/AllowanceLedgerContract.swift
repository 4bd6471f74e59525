import Domain
import Foundation

/// The rules every `AllowanceLedger` keeps.
public enum AllowanceLedgerContract {
    public typealias Factory = @Sendable () async throws -> any AllowanceLedger

    static let news = GroupID("00000000-0000-4000-8000-00000000000a")!
    static let work = GroupID("00000000-0000-4000-8000-00000000000b")!
    static let boot = BootTimeReading(bootID: "boot", seconds: 100)

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a new ledger has spent nothing") { make in
            let ledger = try await make()
            try require(try await ledger.spending(of: news).isEmpty, "spending of a new ledger")
            try require(try await ledger.allSpending().isEmpty, "all spending of a new ledger")
        },
        ContractCheck("spending adds up per group, device and day, stamped with its instant; other groups and days are apart") { make in
            let ledger = try await make()
            try await ledger.spend(300, of: news, by: "laptop", on: 20_000, at: Fixtures.instant(0), boot: boot)
            try await ledger.spend(120, of: news, by: "laptop", on: 20_000, at: Fixtures.instant(10), boot: nil)
            try await ledger.spend(60, of: news, by: "desktop", on: 20_000, at: Fixtures.instant(20), boot: boot)
            try await ledger.spend(30, of: news, by: "laptop", on: 20_001, at: Fixtures.instant(30), boot: boot)
            try await ledger.spend(45, of: work, by: "laptop", on: 20_000, at: Fixtures.instant(40), boot: boot)
            let news = try await ledger.spending(of: news)
            try requireEqual(news.spent(on: 20_000), 480, "news on day 20000, both devices")
            try requireEqual(news.spent(on: 20_001), 30, "news on the next day")
            let laptop = news.first { $0.device == "laptop" && $0.day == 20_000 }
            try requireEqual(laptop?.seconds, 420, "the laptop's record")
            try requireEqual(laptop?.at, Fixtures.instant(10), "stamped with the last change")
            try require(laptop?.boot == nil, "and its boot-time reading")
            try requireEqual(try await ledger.allSpending().count, 4, "records of every group")
        },
        ContractCheck("what is given back lowers the record, never below zero") { make in
            let ledger = try await make()
            try await ledger.spend(300, of: news, by: "laptop", on: 20_000, at: Fixtures.instant(0), boot: boot)
            try await ledger.spend(-200, of: news, by: "laptop", on: 20_000, at: Fixtures.instant(1), boot: boot)
            try requireEqual(try await ledger.spending(of: news).spent(on: 20_000), 100, "after giving 200 back")
            try await ledger.spend(-500, of: news, by: "laptop", on: 20_000, at: Fixtures.instant(2), boot: boot)
            try requireEqual(try await ledger.spending(of: news).spent(on: 20_000), 0, "after giving back more than was spent")
        },
    ]
}
