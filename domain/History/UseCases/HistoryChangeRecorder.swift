import FoundationEssentials
import RetimeShared

/// How a history command makes its change undoable: under the data lock,
/// so what it read is still so when it writes and two processes never
/// record the same session's "before" twice, and with the change in the
/// journal before history is written (a crash in between leaves a journal
/// entry `undo` finds nothing of, and passes over).
struct HistoryChangeRecorder: Sendable {
    let journal: (any HistoryJournal)?
    let dataLock: (any DataLock)?

    /// Runs `body` under the data lock (when there is one).
    func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        guard let dataLock else { return try await body() }
        return try await dataLock.exclusively(body)
    }

    /// An instant for amendments made now that must win over every change
    /// and undo before, even if the clock was set back since (as `undo`
    /// chooses its own).
    func instant(after now: Date) async throws -> Date {
        guard let latest = try await journal?.latest() else { return now }
        return max(now, latest.addingTimeInterval(0.001))
    }

    /// Journals a change that touches `entries`; one that touches nothing is not a change.
    func record(_ kind: HistoryChange.Kind, at: Date, source: String? = nil, entries: [HistoryChange.Entry]) async throws {
        guard let journal, !entries.isEmpty else { return }
        try await journal.record(HistoryChange(kind: kind, at: at, source: source, entries: entries))
    }
}
