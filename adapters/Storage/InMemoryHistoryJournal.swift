import Domain
import Foundation
import Synchronization

/// The undo journal held in memory, for tests and previews.
public final class InMemoryHistoryJournal: HistoryJournal {
    private let state = Mutex<(changes: [HistoryChange], undone: Set<UUID>)>(([], []))

    public init() {}

    public func record(_ change: HistoryChange) async throws {
        state.withLock { $0.changes.append(change) }
    }

    public func markUndone(_ change: UUID, at: Date) async throws {
        _ = state.withLock { $0.undone.insert(change) }
    }

    public func pending() async throws -> [HistoryChange] {
        state.withLock { state in state.changes.filter { !state.undone.contains($0.id) } }
    }
}
