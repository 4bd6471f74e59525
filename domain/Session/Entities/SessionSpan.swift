import FoundationEssentials
import RetimeGroup

/// The part of an ended session that time reports need: when it ran, its
/// breaks, its group and how it ended. Small and cheap to copy, so a report
/// over 100,000 sessions reads spans rather than whole sessions (no tags,
/// notes or origins to decode).
public struct SessionSpan: Sendable, Hashable {
    public var id: SessionID
    public var groupId: GroupID
    public var startedAt: Date
    public var endedAt: Date
    public var outcome: SessionOutcome
    public var breaks: [Break]
    /// The group's name when it ran, if recorded.
    public var groupName: String?
    /// Whether it had no planned end: stopping it is how it ends, not early.
    public var openEnded: Bool
    /// Its tags, when the query asked for them (`HistoryQuery.spansWithTags`).
    public var tags: [String]
    /// Whether it ran a focus cycle, whose rounds `report` counts (`completedRounds`).
    public var cycle: Bool
    /// Its away stretches that counted (`Session+Away`), out of focused
    /// time as breaks are.
    public var away: [Break]

    public init(id: SessionID, groupId: GroupID, startedAt: Date, endedAt: Date, outcome: SessionOutcome, breaks: [Break],
                groupName: String? = nil, openEnded: Bool = false, tags: [String] = [], cycle: Bool = false, away: [Break] = []) {
        self.away = away
        self.id = id
        self.groupId = groupId
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.breaks = breaks
        self.groupName = groupName
        self.openEnded = openEnded
        self.tags = tags
        self.cycle = cycle
    }

    /// A cycle's rounds whose work phase ran to its end: each one a break
    /// followed, and the last one when the session ended as planned (a
    /// fixed cycle's last work phase, or a flow stopped while working).
    /// Zero for a session without a cycle.
    public var completedRounds: Int {
        guard cycle else { return 0 }
        let endedAsPlanned = outcome == .completed || (outcome == .stopped && openEnded)
        let endedInBreak = breaks.last.map { $0.end == nil || $0.end! >= endedAt } ?? false
        return breaks.count + (endedAsPlanned && !endedInBreak ? 1 : 0)
    }

    /// The span of an ended session, its tags only when asked for (as the
    /// history reads spans); nil while it runs.
    public init?(_ session: Session, withTags: Bool = false) {
        guard let endedAt = session.endedAt else { return nil }
        self.init(id: session.id, groupId: session.groupId, startedAt: session.startedAt, endedAt: endedAt,
                  outcome: session.outcome, breaks: session.breaks, groupName: session.groupName, openEnded: session.plannedEnd == nil,
                  tags: withTags ? session.tags : [], cycle: session.cycle != nil,
                  away: session.countedAway(at: endedAt).map { Break(start: $0.start, end: $0.end) })
    }
}
