import FoundationEssentials

/// Where an ended session goes: the History context's record, seen from the
/// session's side, where appending is all that ending a session needs.
/// Appending a session whose id is already there changes nothing, so a
/// retried or raced archive leaves one entry.
public protocol SessionArchive: Sendable {
    /// Records an ended session.
    func append(_ session: Session) async throws
    /// Whether `session`'s id is recorded, whatever was amended since (a
    /// session deleted from history had ended too): a session history
    /// holds has ended, and a copy of it from an old file (a sync tool's
    /// conflict copy of a log, restored late) never runs again.
    func holds(_ session: Session) async throws -> Bool
    /// Whether a session of id `id` is recorded, whatever month it started
    /// in: for a session whose start is not known here any more (a block
    /// this machine still holds for a session whose lines the slot's logs
    /// have since dropped, `ActiveSession.hasEnded`). May read all of
    /// history, so asked only then.
    func holds(id: SessionID) async throws -> Bool
}
