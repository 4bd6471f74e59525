import Domain
import FoundationEssentials
import Synchronization

/// The undo journal held in memory, for tests and previews.
public final class InMemoryHistoryJournal: HistoryJournal {
    private let state = Mutex<(changes: [HistoryChange], undone: Set<UUID>, latest: Date?)>(([], [], nil))

    public init() {}

    public func record(_ change: HistoryChange) async throws {
        state.withLock { state in
            state.changes.append(change)
            state.latest = max(state.latest ?? change.at, change.at)
        }
    }

    public func markUndone(_ change: UUID, at: Date) async throws {
        state.withLock { state in
            state.undone.insert(change)
            state.latest = max(state.latest ?? at, at)
        }
    }

    public func latest() async throws -> Date? {
        state.withLock { $0.latest }
    }

    public func pending() async throws -> [HistoryChange] {
        state.withLock { state in state.changes.filter { !state.undone.contains($0.id) } }
    }
}
