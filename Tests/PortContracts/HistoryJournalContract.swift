import Domain
import Foundation

/// The rules every `HistoryJournal` keeps: changes read back whole, in the
/// order recorded; one marked undone leaves `pending`, and marking is
/// idempotent; concurrent records are all kept.
public enum HistoryJournalContract {
    public typealias Factory = @Sendable () async throws -> any HistoryJournal

    static func change(_ kind: HistoryChange.Kind, at seconds: TimeInterval) -> HistoryChange {
        let before = Fixtures.endedSession(startingAt: seconds)
        let after = Fixtures.endedSession(startingAt: seconds + 50, length: 900).withID(before.id)
        switch kind {
        case .track: return HistoryChange(kind: kind, at: Fixtures.instant(seconds + 2_000), entries: [.init(before: nil, after: before)])
        case .delete: return HistoryChange(kind: kind, at: Fixtures.instant(seconds + 2_000), entries: [.init(before: before, after: nil)])
        case .edit: return HistoryChange(kind: kind, at: Fixtures.instant(seconds + 2_000), entries: [.init(before: before, after: after)])
        case .import:
            return HistoryChange(kind: kind, at: Fixtures.instant(seconds + 2_000), source: "watson",
                                 entries: [.init(before: nil, after: Fixtures.endedSession(startingAt: seconds + 10)), .init(before: before, after: after)])
        }
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("an empty journal has nothing pending") { make in
            try requireEqual(try await make().pending(), [], "pending")
        },
        ContractCheck("changes read back equal in every field, oldest first") { make in
            let journal = try await make()
            let changes = [change(.track, at: 0), change(.edit, at: 100), change(.delete, at: 200), change(.import, at: 300)]
            for change in changes { try await journal.record(change) }
            try requireEqual(try await journal.pending(), changes, "pending")
        },
        ContractCheck("a change marked undone leaves pending; marking again, or an unknown id, changes nothing") { make in
            let journal = try await make()
            let (first, second, third) = (change(.track, at: 0), change(.edit, at: 100), change(.delete, at: 200))
            for change in [first, second, third] { try await journal.record(change) }
            try await journal.markUndone(third.id, at: Fixtures.instant(5_000))
            try requireEqual(try await journal.pending(), [first, second], "the last undone")
            try await journal.markUndone(third.id, at: Fixtures.instant(5_001))
            try await journal.markUndone(UUID(), at: Fixtures.instant(5_002))
            try await journal.markUndone(first.id, at: Fixtures.instant(5_003))
            try requireEqual(try await journal.pending(), [second], "the first undone too")
        },
        ContractCheck("concurrent records are all kept") { make in
            let journal = try await make()
            let changes = (0..<20).map { change(.track, at: TimeInterval($0) * 100) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for change in changes { group.addTask { try await journal.record(change) } }
                try await group.waitForAll()
            }
            try requireEqual(Set(try await journal.pending()), Set(changes), "all twenty")
        },
        ContractCheck("latest is the latest instant of any change or undo recorded, in whatever order") { make in
            let journal = try await make()
            try requireEqual(try await journal.latest(), nil, "empty")
            let (late, early) = (change(.track, at: 1_000), change(.edit, at: 0))
            try await journal.record(late)
            try await journal.record(early)
            try requireEqual(try await journal.latest(), late.at, "the later change")
            try await journal.markUndone(early.id, at: Fixtures.instant(9_000))
            try requireEqual(try await journal.latest(), Fixtures.instant(9_000), "the undo")
            try await journal.markUndone(late.id, at: Fixtures.instant(8_000))
            try requireEqual(try await journal.latest(), Fixtures.instant(9_000), "still the later undo")
        },
    ]
}
