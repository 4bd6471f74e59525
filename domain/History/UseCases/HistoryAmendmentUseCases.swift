import FoundationEssentials
import RetimeSession
import RetimeShared

/// Finds the ended session a user names (`SessionReference`).
public struct FindEndedSessionUseCase: Sendable {
    private let history: any SessionHistory

    public init(history: any SessionHistory) {
        self.history = history
    }

    public func execute(_ reference: SessionReference) async throws -> Session {
        switch reference {
        case .recent(let number):
            let newest = try await history.sessions(matching: HistoryQuery(limit: number))
            guard newest.count == number else { throw SessionError.sessionNotFound(reference.description) }
            return newest[number - 1]
        case .id(let id):
            guard let found = try await history.sessions(matching: .all).first(where: { $0.id == id }) else {
                throw SessionError.sessionNotFound(reference.description)
            }
            return found
        case .prefix(let prefix):
            let matches = try await history.sessions(matching: .all).filter { $0.id.description.hasPrefix(prefix) }
            guard let first = matches.first else { throw SessionError.sessionNotFound(prefix) }
            guard matches.count == 1 else { throw SessionError.ambiguousSession(prefix, matches: matches.count) }
            return first
        }
    }
}

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
        // The plan is the length asked for at the start (`--for 50m`); an
        // edit corrects when the session ran, not what was planned, so the
        // planned end moves with the start and `continue` plans as before.
        let plannedEnd = session.plannedEnd.map { from + $0.timeIntervalSince(session.startedAt) }
        let revised = Session(id: session.id, groupId: groupId, startedAt: from, plannedEnd: plannedEnd, endedAt: to,
                              outcome: session.outcome, strict: session.strict, breaks: breaks, tags: try plan.validatedTags(),
                              note: try plan.validatedNote(), origin: session.origin, groupName: groupName)
        guard revised != session else { return (session, false) }
        try await recorder.record(.edit, at: now, entries: [.init(before: session, after: revised)])
        try await history.amend(.revise(revised, at: now))
        return (revised, true)
    }
}

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

/// `continue`: a new session on an ended one's group, tags and note; as
/// long as it was planned to last, unless told otherwise.
public struct ContinueSessionUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let start: StartSessionUseCase

    public init(history: any SessionHistory, groups: any SessionGroupLookup, start: StartSessionUseCase) {
        self.history = history
        self.groups = groups
        self.start = start
    }

    public func execute(_ reference: SessionReference, length: SessionLength?) async throws -> (previous: Session, started: SessionReceipt) {
        let previous = try await FindEndedSessionUseCase(history: history).execute(reference)
        guard let group = try await groups.blockList(id: previous.groupId) else {
            throw SessionError.groupNotFound(name: previous.groupName ?? "of session \(previous.id.description.prefix(8))")
        }
        let planned = previous.plannedEnd.map { SessionLength.duration($0.timeIntervalSince(previous.startedAt)) } ?? .openEnded
        let plan = SessionPlan(groupName: group.name, groupId: group.groupId, length: length ?? planned, tags: previous.tags,
                               note: previous.note)
        return (previous, try await start.execute(plan))
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

extension ContinueSessionUseCase: ReconcilesSession {}
