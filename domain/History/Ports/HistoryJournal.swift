import FoundationEssentials

/// The changes this device's history commands made, in the order they were
/// made, for `undo` (docs/history.md, "Undo"). Append-only like history:
/// a change is recorded once, and undoing it is one more record, never a
/// rewrite. Each device keeps its own; another device's changes are not in it.
///
/// The contract every adapter keeps is `HistoryJournalContract`.
public protocol HistoryJournal: Sendable {
    /// Records a change, before history is changed.
    func record(_ change: HistoryChange) async throws
    /// Records that a change was undone; it leaves `pending`. Marking one
    /// already undone, or unknown, changes nothing.
    func markUndone(_ change: UUID, at: Date) async throws
    /// The changes not undone, oldest first: the last one is what `undo`
    /// reverts next.
    func pending() async throws -> [HistoryChange]
    /// The latest instant recorded, of a change or of an undo (nil: none):
    /// an undo's amendments are made later than it, so they win over what
    /// they revert even when the clock was set back since.
    func latest() async throws -> Date?
}
