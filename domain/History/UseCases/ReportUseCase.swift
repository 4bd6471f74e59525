import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession
import RetimeShared

/// `retime report`: focused time and sessions per day, week or group over
/// the ended sessions that started in `since..<until`.
public struct ReportUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let calendar: IntervalCalendar
    private let summaries: (any HistorySummaryStore)?
    private let clock: (any Clock)?

    /// Days and weeks are those of `calendar`'s time zone. With `summaries`
    /// (and a clock to tell which months are over), a report by day or week
    /// takes each sealed month in its range from the month's summary
    /// (`SummarizedHistory`); the report is the same as without, to the bit.
    public init(history: any SessionHistory, groups: any SessionGroupLookup, calendar: IntervalCalendar,
                summaries: (any HistorySummaryStore)? = nil, clock: (any Clock)? = nil) {
        self.history = history
        self.groups = groups
        self.calendar = calendar
        self.summaries = summaries
        self.clock = clock
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
        let query = HistoryQuery(since: since, until: until, groupId: group, tag: tag, spansWithTags: grouping.byTag)
        if let summaries, let clock, !grouping.byName, group == nil, tag == nil {
            let builder = ReportBuilder(grouping: grouping, timeZone: calendar.timeZone, groupNames: [:])
            let read = try await SummarizedHistory(history: history, store: summaries, builder: builder, now: clock.now()).read(query)
            return builder.build(read.spans, summaries: read.summaries, since: since, until: until)
        }
        let spans = try await history.spans(matching: query)
        // One row per group, by identity: a renamed group is one row under
        // its name now, a deleted one keeps the name it last ran under.
        let names = grouping == .group || grouping == .groupTag ? try await HistoryGroups(groups: groups, history: history).labels(of: spans) : [:]
        return ReportBuilder(grouping: grouping, timeZone: calendar.timeZone, groupNames: names).build(spans, since: since, until: until)
    }
}
