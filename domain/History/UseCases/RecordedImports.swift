import FoundationEssentials
import RetimeSession

/// What history holds of earlier imports, for an import to find an entry's
/// session again: every id, and, when entries may update their sessions,
/// the imported sessions themselves, by id and by tool and start.
struct RecordedImports {
    /// Every session id in history.
    let ids: Set<SessionID>
    private let byID: [SessionID: Session]
    private let byStart: [String: Session]

    /// `updating`: whether to read the sessions themselves (an import of
    /// Watson or Timewarrior data); otherwise only the ids are read.
    init(history: any SessionHistory, updating: Bool) async throws {
        guard updating else {
            ids = Set(try await history.spans(matching: .all).map(\.id))
            byID = [:]
            byStart = [:]
            return
        }
        let sessions = try await history.sessions(matching: .all)
        ids = Set(sessions.map(\.id))
        var byID: [SessionID: Session] = [:], byStart: [String: Session] = [:]
        for session in sessions {
            guard case .imported = session.origin else { continue }
            byID[session.id] = session
            byStart[Self.key(session)] = byStart[Self.key(session)] ?? session
        }
        self.byID = byID
        self.byStart = byStart
    }

    /// The session an entry became: by its id (Watson's frames keep theirs),
    /// else, for Timewarrior, whose intervals have none, by its start (no
    /// two of its intervals share one).
    func match(_ session: Session) -> Session? {
        if let found = byID[session.id] { return found }
        guard session.origin == .imported("timewarrior") else { return nil }
        return byStart[Self.key(session)]
    }

    /// What a Timewarrior interval that matched nothing by its start
    /// became, when its start was moved in Timewarrior since (`timew modify
    /// start`, `timew move`): the one session imported from Timewarrior
    /// that it overlaps and that no entry of this import matched by start
    /// (Timewarrior keeps no two intervals overlapping, so the interval that
    /// replaced it is the one over its time). `matched`: the sessions this
    /// import's entries matched.
    func moved(_ session: Session, matched: Set<SessionID>) -> MovedInterval {
        guard session.origin == .imported("timewarrior"), let end = session.endedAt else { return .none }
        let left = byID.values.filter { earlier in
            earlier.origin == session.origin && !matched.contains(earlier.id)
                && earlier.startedAt < end && session.startedAt < (earlier.endedAt ?? earlier.startedAt)
        }
        switch left.count {
        case 0: return .none
        case 1: return .found(left[0])
        default: return .ambiguous(left.count)
        }
    }

    /// Sessions imported from `tool` that started within `span` and are not
    /// in `matched`: entries gone from the tool's data since.
    func unmatched(from tool: SessionOrigin, within span: Range<Date>, matched: Set<SessionID>) -> Int {
        byID.values.filter { $0.origin == tool && !matched.contains($0.id) && span.contains($0.startedAt) }.count
    }

    /// The answer of `moved(_:matched:)`.
    enum MovedInterval {
        /// No earlier session: a new interval.
        case none
        case found(Session)
        /// It overlaps this many earlier sessions: which it became is unknown.
        case ambiguous(Int)
    }

    private static func key(_ session: Session) -> String {
        "\(session.origin)|\(session.startedAt.timeIntervalSince1970)"
    }
}
