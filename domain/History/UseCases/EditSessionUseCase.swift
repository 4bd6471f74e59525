import FoundationEssentials
import RetimeSession
import RetimeShared

/// `edit`: an ended session with new group, times, tags or note, recorded
/// as an amendment (semantics.md, "History amendments").
public struct EditSessionUseCase: Sendable {
    /// What to change; nil leaves it as it is.
    public struct Changes: Sendable {
        public var group: String?
        public var from: Date?
        public var to: Date?
        public var addTags: [String]
        public var removeTags: [String]
        public var note: String?

        public init(group: String? = nil, from: Date? = nil, to: Date? = nil, addTags: [String] = [], removeTags: [String] = [],
                    note: String? = nil) {
            self.group = group
            self.from = from
            self.to = to
            self.addTags = addTags
            self.removeTags = removeTags
            self.note = note
        }
    }

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

    public func execute(_ reference: SessionReference, changes: Changes) async throws -> Session {
        try await revise(reference, changes: changes).session
    }

    /// The session as it now is, and whether anything changed: an edit
    /// that changes nothing writes nothing, and says so.
    public func revise(_ reference: SessionReference, changes: Changes) async throws -> (session: Session, changed: Bool) {
        // Read, check and write under the lock: two edits at once both hold.
        try await recorder.exclusively { try await reviseHolding(reference, changes: changes) }
    }

    private func reviseHolding(_ reference: SessionReference, changes: Changes) async throws -> (session: Session, changed: Bool) {
        let session = try await FindEndedSessionUseCase(history: history).execute(reference)
        var groupId = session.groupId, groupName = session.groupName
        if let name = changes.group {
            guard let group = try await groups.blockList(named: name) else { throw SessionError.groupNotFound(name: name) }
            (groupId, groupName) = (group.groupId, group.name)
        }
        let from = changes.from ?? session.startedAt
        let to = changes.to ?? session.endedAt ?? session.startedAt
        let now = clock.now()
        try SessionTimes.check(from: from, to: to, now: now)
        let removed = Set(changes.removeTags.map(\.trimmedSpaces))
        let plan = SessionPlan(groupName: "", tags: session.tags.filter { !removed.contains($0) } + changes.addTags,
                               note: changes.note ?? session.note)
        // Breaks outside the new times are dropped, those across them cut.
        let breaks = session.breaks.compactMap { pause -> Break? in
            let start = max(pause.start, from), end = min(pause.end ?? to, to)
            return start < end ? Break(start: start, end: end) : nil
        }
        // Away stretches likewise: an edit keeps what was away inside the new times.
        let away = session.awayStretches.compactMap { stretch -> AwayStretch? in
            var cut = stretch
            cut.start = max(stretch.start, from)
            cut.end = min(stretch.end ?? to, to)
            guard cut.start < cut.end! else { return nil }
            // A stretch that counted still counts for the part left of it.
            if cut != stretch, let end = stretch.end, end.timeIntervalSince(stretch.start) >= stretch.threshold { cut.threshold = 0 }
            return cut
        }
        // The plan is the length asked for at the start (`--for 50m`); an
        // edit corrects when the session ran, not what was planned, so the
        // planned end moves with the start and `continue` plans as before.
        let plannedEnd = session.plannedEnd.map { from + $0.timeIntervalSince(session.startedAt) }
        let revised = Session(id: session.id, groupId: groupId, startedAt: from, plannedEnd: plannedEnd, endedAt: to,
                              outcome: session.outcome, strict: session.strict, breaks: breaks, tags: try plan.validatedTags(),
                              note: try plan.validatedNote(), origin: session.origin, groupName: groupName, device: session.device,
                              cycle: session.cycle, away: away)
        guard revised != session else { return (session, false) }
        try await recorder.record(.edit, at: now, entries: [.init(before: session, after: revised)])
        // Only what changed: a concurrent edit of another field, on another
        // device, holds beside it.
        try await history.amend(.edit(revised, SessionChanges(from: session, to: revised), at: now))
        return (revised, true)
    }
}
