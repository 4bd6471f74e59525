import FoundationEssentials
import RetimeSession
import RetimeShared

/// `track`: records a past session, completed, as if it had run.
public struct TrackSessionUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let clock: any Clock
    private let recorder: HistoryChangeRecorder

    /// `journal`: where the change is recorded for `undo`.
    public init(history: any SessionHistory, groups: any SessionGroupLookup, clock: any Clock, journal: (any HistoryJournal)? = nil,
                dataLock: (any DataLock)? = nil) {
        self.history = history
        self.groups = groups
        self.clock = clock
        recorder = HistoryChangeRecorder(journal: journal, dataLock: dataLock)
    }

    public func execute(group name: String, from: Date, to: Date, tags: [String], note: String?) async throws -> Session {
        guard let group = try await groups.blockList(named: name) else { throw SessionError.groupNotFound(name: name) }
        try SessionTimes.check(from: from, to: to, now: clock.now())
        let plan = SessionPlan(groupName: name, tags: tags, note: note)
        let session = Session(groupId: group.groupId, startedAt: from, plannedEnd: to, tags: try plan.validatedTags(),
                              note: try plan.validatedNote(), origin: .manual, groupName: group.name)
            .ending(at: to, outcome: .completed)
        return try await recorder.exclusively {
            try await recorder.record(.track, at: clock.now(), entries: [.init(before: nil, after: session)])
            try await history.append(session)
            return session
        }
    }
}

/// The rules of a recorded session's times.
enum SessionTimes {
    static func check(from: Date, to: Date, now: Date) throws(SessionError) {
        guard HistoryWindow.instants.contains(from), HistoryWindow.instants.contains(to) else {
            let which = HistoryWindow.instants.contains(from) ? "the end" : "the start"
            throw .invalidTimes("\(HistoryWindow.description) (\(which) is not)")
        }
        guard from < to else { throw .invalidTimes("the start must come before the end") }
        guard to <= now else { throw .invalidTimes("the end is in the future; start a session instead") }
        guard to.timeIntervalSince(from) <= SessionLength.allowed.upperBound else {
            throw .invalidTimes("a session lasts at most 24 hours")
        }
    }
}
