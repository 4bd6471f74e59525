import FoundationEssentials
import RetimeSession

/// A change to an ended session, recorded after it (semantics.md, "History
/// amendments"): history stays append-only, and readers resolve each id to
/// its latest amendment, so devices' folders merge by union and the edit
/// made last wins, wherever and in whatever order the files arrive.
public enum HistoryAmendment: Sendable, Hashable {
    /// The session as it now reads (same id).
    case revise(Session, at: Date)
    /// The session is gone from history.
    case delete(SessionID, at: Date)

    public var id: SessionID {
        switch self {
        case .revise(let session, _): session.id
        case .delete(let id, _): id
        }
    }

    /// When the amendment was made.
    public var revisedAt: Date {
        switch self {
        case .revise(_, let at), .delete(_, let at): at
        }
    }

    /// Per id, the amendment that wins: the latest `revisedAt`, ties broken
    /// by the device id that recorded it (so every reader agrees).
    public static func winners(_ amendments: [(amendment: HistoryAmendment, device: String)]) -> [SessionID: HistoryAmendment] {
        var best: [SessionID: (amendment: HistoryAmendment, device: String)] = [:]
        for entry in amendments {
            if let held = best[entry.amendment.id],
               (held.amendment.revisedAt, held.device) >= (entry.amendment.revisedAt, entry.device) { continue }
            best[entry.amendment.id] = entry
        }
        return best.mapValues(\.amendment)
    }

    /// `sessions` as amended: amended ids replaced by their revision (if it
    /// matches `query`) or dropped (deleted), in the query's order and limit.
    public static func apply(_ winners: [SessionID: HistoryAmendment], to sessions: [Session], query: HistoryQuery) -> [Session] {
        guard !winners.isEmpty else { return sessions }
        var kept = sessions.filter { winners[$0.id] == nil }
        for case .revise(let session, _) in winners.values where query.matches(session) { kept.append(session) }
        return query.order(kept)
    }
}
