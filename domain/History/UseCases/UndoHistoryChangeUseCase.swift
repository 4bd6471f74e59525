import FoundationEssentials
import RetimeSession
import RetimeShared

/// `undo`: reverts the last change this device's history commands made
/// (`track`, `edit`, `delete`, a run of `import`) that is not undone yet;
/// run again, it goes one change further back (docs/history.md, "Undo").
///
/// It changes history records only, as amendments: never the session in
/// progress, a block or a group, so it cannot end or weaken a strict
/// session. Every session of the change is restored in one write, so a
/// crash leaves the change whole or undone whole. A session changed since
/// (on another device, whose folder was synced in) is left as it is and
/// counted: undoing would lose that change.
public struct UndoHistoryChangeUseCase: Sendable {
    /// What an undo did, or (a dry run) would do.
    public struct Outcome: Sendable, Equatable {
        public var change: HistoryChange
        /// Sessions put back as they were before the change.
        public var restored: [HistoryChange.Entry]
        /// Sessions changed since the change, left as they are.
        public var changedSince: [HistoryChange.Entry]
        public var dryRun: Bool
    }

    private let history: any SessionHistory
    private let journal: any HistoryJournal
    private let dataLock: any DataLock
    private let clock: any Clock

    public init(history: any SessionHistory, journal: any HistoryJournal, dataLock: any DataLock, clock: any Clock) {
        self.history = history
        self.journal = journal
        self.dataLock = dataLock
        self.clock = clock
    }

    /// `dryRun`: says what would be undone and writes nothing.
    public func execute(dryRun: Bool = false) async throws -> Outcome {
        try await dataLock.exclusively {
            let pending = try await journal.pending()
            let touched = Set(pending.flatMap { $0.entries.map(\.id) })
            var current: [SessionID: Session] = [:]
            for session in try await history.sessions(matching: .all) where touched.contains(session.id) { current[session.id] = session }
            // Later than every change and undo before, even if the clock was
            // set back since (or reads the same instant twice): the latest
            // amendment of a session is the one that counts.
            let at = try await HistoryChangeRecorder(journal: journal, dataLock: nil).instant(after: clock.now())
            for change in pending.reversed() {
                let (outcome, amendments) = plan(change, current: current, at: at, dryRun: dryRun)
                if amendments.isEmpty && outcome.changedSince.isEmpty {
                    // Nothing of it is in history: a command killed after its
                    // journal entry and before its write, or an undo killed
                    // after its write and before marking it. Not a change the
                    // user sees; the one before it is.
                    if !dryRun { try await journal.markUndone(change.id, at: at) }
                    continue
                }
                guard !dryRun else { return outcome }
                // History first, then the journal: killed between the two,
                // the change reads undone, and the next undo marks it
                // (above) and goes on to the one before.
                if !amendments.isEmpty { try await history.amend(contentsOf: amendments) }
                try await journal.markUndone(change.id, at: at)
                return outcome
            }
            throw SessionError.nothingToUndo
        }
    }

    /// What undoing `change` writes: each session it touched back as it was
    /// before, unless it has changed since.
    private func plan(_ change: HistoryChange, current: [SessionID: Session], at: Date,
                      dryRun: Bool) -> (Outcome, [HistoryAmendment]) {
        var outcome = Outcome(change: change, restored: [], changedSince: [], dryRun: dryRun)
        var amendments: [HistoryAmendment] = []
        for entry in change.entries {
            let now = current[entry.id]
            if HistoryChange.same(now, entry.before) { continue }
            if HistoryChange.same(now, entry.after) {
                amendments.append(Self.reverting(entry, at: at))
                outcome.restored.append(entry)
            } else {
                outcome.changedSince.append(entry)
            }
        }
        return (outcome, amendments)
    }

    /// The amendment that puts `entry`'s session back as it was: an edit of
    /// just the fields the change made (a concurrent edit of the others,
    /// elsewhere, stays), the whole session where the change deleted it,
    /// or a deletion where the change added it.
    private static func reverting(_ entry: HistoryChange.Entry, at: Date) -> HistoryAmendment {
        guard let before = entry.before else { return .delete(entry.id, at: at) }
        guard let after = entry.after else { return .revise(before, at: at) }
        return .edit(before, SessionChanges(from: after, to: before), at: at)
    }
}
