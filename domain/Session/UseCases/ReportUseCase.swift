import Foundation

/// `retime report`: focused time and sessions per day, week or group over
/// the ended sessions that started in `since..<until`.
public struct ReportUseCase: Sendable {
    private let history: any SessionHistory
    private let groups: any SessionGroupLookup
    private let timeZone: TimeZone

    public init(history: any SessionHistory, groups: any SessionGroupLookup, timeZone: TimeZone) {
        self.history = history
        self.groups = groups
        self.timeZone = timeZone
    }

    public func execute(since: Date?, until: Date?, by grouping: ReportGrouping) async throws -> Report {
        let spans = try await history.spans(matching: HistoryQuery(since: since, until: until))
        var names: [GroupID: String] = [:]
        for id in grouping == .group ? Set(spans.map(\.groupId)) : [] {
            if let group = try await groups.blockList(id: id) { names[id] = group.name }
        }
        return ReportBuilder(grouping: grouping, timeZone: timeZone, groupNames: names).build(spans, since: since, until: until)
    }
}
