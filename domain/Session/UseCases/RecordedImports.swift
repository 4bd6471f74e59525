import FoundationEssentials

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

    private static func key(_ session: Session) -> String {
        "\(session.origin)|\(session.startedAt.timeIntervalSince1970)"
    }
}
