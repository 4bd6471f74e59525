import Domain
import Foundation

/// The rules every `HistorySummaryStore` keeps: what was kept comes back
/// exactly (every instant and sum to the bit), a keep replaces what was,
/// and nothing but a kept set ever comes back, even from keeps at once.
public enum HistorySummaryStoreContract {
    public typealias Factory = @Sendable () async throws -> any HistorySummaryStore

    /// A month's summary with every field set, its numbers drawn from `seed`:
    /// fractions no decimal text holds, negative days, a stretch of no length.
    public static func summary(_ seed: Int, days: Int = 3) -> MonthSummary {
        let base = Fixtures.instant(Double(seed) * 2_592_000 + 0.1)
        let dayStarts = (0..<(days + 3)).map { base.addingTimeInterval(Double($0) * 86_400 - 0.000_000_3) }
        return MonthSummary(
            version: "segment \(seed) @ 1:2:\(seed):é", starts: base...base.addingTimeInterval(Double(days) * 86_000),
            firstDay: Int64(seed) * 30 - 20_600, dayStarts: dayStarts,
            days: (0..<days).map { index in
                MonthSummary.Day(day: Int64(seed) * 30 - 20_599 + Int64(index), focusedSeconds: 1.0 / 3.0 + Double(index * seed),
                                 sessions: index + 1, completed: index, stopped: seed % 2, rounds: 4 * index)
            },
            stretches: (0..<(days * 4)).map { index in
                let start = base.addingTimeInterval(Double(index) * 3_600 + 1.0 / 7.0)
                return MonthSummary.Stretch(start: start, end: index == 1 ? start : start.addingTimeInterval(1_234.567_891))
            },
            fingerprints: (0..<(days * 5)).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(seed) }.sorted())
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a store that kept nothing has no summaries") { make in
            try requireEqual(await (try await make()).summaries(), HistorySummaries(), "summaries of a new store")
        },
        ContractCheck("kept summaries read back equal in every field, to the bit") { make in
            let store = try await make()
            let kept = ["2026-01": summary(1), "2026-02": summary(2, days: 31), "1999-12": summary(-300, days: 0),
                        "empty": MonthSummary(version: "", starts: nil, firstDay: 0, dayStarts: [], days: [], stretches: [], fingerprints: [])]
            await store.keep(HistorySummaries(months: kept, sharing: ["2026-01", "empty"]))
            let read = await store.summaries()
            try requireEqual(read, HistorySummaries(months: kept, sharing: ["2026-01", "empty"]), "summaries")
            for (key, summary) in kept {
                try requireEqual(read.months[key]?.days.map(\.focusedSeconds.bitPattern), summary.days.map(\.focusedSeconds.bitPattern),
                                 "\(key): focused seconds, bit for bit")
                try requireEqual(read.months[key]?.dayStarts.map(\.timeIntervalSinceReferenceDate.bitPattern),
                                 summary.dayStarts.map(\.timeIntervalSinceReferenceDate.bitPattern), "\(key): day starts, bit for bit")
            }
        },
        ContractCheck("a keep replaces what was kept: months left out are gone") { make in
            let store = try await make()
            await store.keep(HistorySummaries(months: ["2026-01": summary(1), "2026-02": summary(2)]))
            await store.keep(HistorySummaries(months: ["2026-02": summary(3)]))
            try requireEqual(await store.summaries(), HistorySummaries(months: ["2026-02": summary(3)]), "after the second keep")
            await store.keep(HistorySummaries())
            try requireEqual(await store.summaries(), HistorySummaries(), "after keeping none")
        },
        ContractCheck("keeps at once leave one of them whole, never a mix") { make in
            let store = try await make()
            let sets = (0..<8).map { index in
                HistorySummaries(months: Dictionary(uniqueKeysWithValues: (0..<4).map { ("2026-0\($0 + 1)", summary(index * 10 + $0, days: 20)) }))
            }
            let seen = await withTaskGroup(of: [HistorySummaries].self) { tasks in
                for set in sets {
                    tasks.addTask {
                        await store.keep(set)
                        return []
                    }
                }
                tasks.addTask {
                    var seen: [HistorySummaries] = []
                    for _ in 0..<8 { seen.append(await store.summaries()) }
                    return seen
                }
                return await tasks.reduce(into: []) { $0 += $1 }
            }
            for read in seen {
                try require(read == HistorySummaries() || sets.contains(read), "a read while keeping: \(read.months.keys.sorted())")
            }
            let read = await store.summaries()
            try require(sets.contains(read), "what is kept is one of the sets kept: \(read.months.keys.sorted())")
        },
    ]
}
