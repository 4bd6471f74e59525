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
}
