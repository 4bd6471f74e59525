import FoundationEssentials
import RetimeSession
import RetimeShared

/// `delete`: removes an ended session from history, as an amendment.
public struct DeleteSessionUseCase: Sendable {
    private let history: any SessionHistory
    private let clock: any Clock
    private let recorder: HistoryChangeRecorder

    /// `journal`: where the change is recorded for `undo`.
    public init(history: any SessionHistory, clock: any Clock, journal: (any HistoryJournal)? = nil, dataLock: (any DataLock)? = nil) {
        self.history = history
        self.clock = clock
        recorder = HistoryChangeRecorder(journal: journal, dataLock: dataLock)
    }

    public func execute(_ reference: SessionReference) async throws -> Session {
        try await recorder.exclusively {
            let session = try await FindEndedSessionUseCase(history: history).execute(reference)
            let now = clock.now()
            try await recorder.record(.delete, at: now, entries: [.init(before: session, after: nil)])
            try await history.amend(.delete(session.id, at: now))
            return session
        }
    }
}
