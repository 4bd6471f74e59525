import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession

/// `retime report`: focused time and sessions per day, week or group over
/// the ended sessions that started in `since..<until`.
public struct ReportUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let calendar: IntervalCalendar

    /// Days and weeks are those of `calendar`'s time zone.
    public init(history: any SessionHistory, groups: any SessionGroupLookup, calendar: IntervalCalendar) {
        self.history = history
        self.groups = groups
        self.calendar = calendar
    }

    /// `groupNamed` and `tag` keep only that group's or that tag's sessions:
    /// `SessionError.groupNotFound` when no group has that name now and no
    /// session ran under it.
    public func execute(since: Date?, until: Date?, by grouping: ReportGrouping, groupNamed: String?, tag: String? = nil) async throws -> Report {
        try await execute(since: since, until: until, by: grouping,
                          group: try await HistoryGroups(groups: groups, history: history).id(named: groupNamed), tag: tag)
    }

    /// `group` and `tag` keep only that group's (by id) or that tag's sessions.
    public func execute(since: Date?, until: Date?, by grouping: ReportGrouping, group: GroupID? = nil, tag: String? = nil) async throws -> Report {
        let spans = try await history.spans(matching: HistoryQuery(since: since, until: until, groupId: group, tag: tag,
                                                                    spansWithTags: grouping.byTag))
        // One row per group, by identity: a renamed group is one row under
        // its name now, a deleted one keeps the name it last ran under.
        let names = grouping == .group || grouping == .groupTag ? try await HistoryGroups(groups: groups, history: history).labels(of: spans) : [:]
        return ReportBuilder(grouping: grouping, timeZone: calendar.timeZone, groupNames: names).build(spans, since: since, until: until)
    }
}
