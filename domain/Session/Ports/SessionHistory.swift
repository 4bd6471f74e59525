import Foundation

/// The record of ended sessions. Append-only: adding one never rewrites the
/// others, and appending a session whose id is already recorded changes
/// nothing (so a retried or raced archive leaves one entry).
///
/// The contract every adapter keeps is `SessionHistoryContract`.
public protocol SessionHistory: Sendable {
    /// Records an ended session.
    func append(_ session: Session) async throws
    /// Ended sessions matching `query`, newest start first.
    func sessions(matching query: HistoryQuery) async throws -> [Session]
}

/// Which ended sessions to read.
public struct HistoryQuery: Sendable, Hashable {
    /// Sessions that started at or after this instant.
    public var since: Date?
    /// Sessions that started before this instant (exclusive).
    public var until: Date?
    public var groupId: GroupID?
    /// At most this many, the newest.
    public var limit: Int?

    public init(since: Date? = nil, until: Date? = nil, groupId: GroupID? = nil, limit: Int? = nil) {
        self.since = since
        self.until = until
        self.groupId = groupId
        self.limit = limit
    }

    /// Every ended session.
    public static let all = HistoryQuery()

    /// Whether `session` passes the filters (the limit aside).
    public func matches(_ session: Session) -> Bool {
        if let since, session.startedAt < since { return false }
        if let until, session.startedAt >= until { return false }
        if let groupId, session.groupId != groupId { return false }
        return true
    }

    /// Orders and limits matching sessions as the port promises: newest start
    /// first, ties broken by id so the order is stable.
    public func arrange(_ sessions: [Session]) -> [Session] {
        let sorted = sessions.filter(matches).sorted {
            $0.startedAt != $1.startedAt ? $0.startedAt > $1.startedAt : $0.id.description < $1.id.description
        }
        guard let limit else { return sorted }
        return Array(sorted.prefix(max(0, limit)))
    }
}
