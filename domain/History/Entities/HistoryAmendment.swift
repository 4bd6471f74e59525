import FoundationEssentials
import RetimeSession

/// A change to an ended session, recorded after it (semantics.md, "History
/// amendments"): history stays append-only, and readers merge each id's
/// amendments per field by the hybrid clock (`AmendedSessions`), so
/// devices' folders merge by union and concurrent edits of different
/// fields both hold, wherever and in whatever order the files arrive.
public enum HistoryAmendment: Sendable, Hashable {
    /// The session as it now reads (same id), every field set: an import's
    /// update, the undo of a deletion, and every amendment an older retime
    /// wrote.
    case revise(Session, at: Date)
    /// Only `changes` of the session as it now reads: what `edit` and the
    /// undo of an edit write. The session's other fields are what its
    /// writer saw, a base for readers that lack the session's own line.
    case edit(Session, SessionChanges, at: Date)
    /// The session is gone from history.
    case delete(SessionID, at: Date)

    public var id: SessionID {
        switch self {
        case .revise(let session, _), .edit(let session, _, _): session.id
        case .delete(let id, _): id
        }
    }

    /// When the amendment was made, by the wall clock of the device that
    /// made it (its hybrid clock reading is given when it is written).
    public var revisedAt: Date {
        switch self {
        case .revise(_, let at), .edit(_, _, let at), .delete(_, let at): at
        }
    }
}
