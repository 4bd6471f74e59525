import Adapters
import Domain
import Foundation
@testable import RetimeHistory
import PortContracts
import Testing

/// Reports by day and week taken from months' summaries are the reports of
/// every session, to the bit, over random histories, amendments, ranges and
/// time zones; and the summaries are really taken, not passed over.
@Suite("Report summaries: the same report as reading every session")
struct ReportSummaryPropertyTests {
    typealias Seeded = SeededGenerator

    /// 2024-01-01T00:00:00Z: histories span its first seven months.
    static let origin = Date(timeIntervalSince1970: 1_704_067_200)
    /// Long after every month drawn: all of them are over.
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let groups = (0..<3).map { _ in GroupID() }

    /// Zones with DST, half and quarter hours, a 30-minute DST shift, a day
    /// that starts at 01:00 (Santiago), and an offset of odd seconds.
    static let zones: [TimeZoneRules] = ["UTC", "Europe/Berlin", "America/Santiago", "Asia/Kathmandu", "Australia/Lord_Howe",
                                         "Pacific/Chatham", "America/St_Johns"].compactMap { SystemTimeZone.named($0) }
        + [.fixed("ODD", offset: -(3 * 3_600 + 17 * 60 + 23))]

    /// An instant within the seven months, with a fraction no decimal holds;
    /// one in four lands within two hours of a month's start (UTC).
    static func instant(_ random: inout Seeded) -> Date {
        if Int.random(in: 0..<4, using: &random) == 0 {
            let month = Self.monthStart(Int.random(in: 1...6, using: &random))
            return month.addingTimeInterval(Double.random(in: -7_200..<7_200, using: &random))
        }
        return origin.addingTimeInterval(Double.random(in: 0..<(212 * 86_400), using: &random))
    }

    static func monthStart(_ index: Int) -> Date {
        Date(timeIntervalSince1970: Double(Timestamp.days(fromCivil: 2024, Int64(index) + 1, 1) * 86_400))
    }

    /// An ended session with random breaks, away time, cycle, outcome and
    /// planned end; up to 20 hours long, so some cross midnights and months.
    static func session(_ random: inout Seeded, id: SessionID = SessionID()) -> Session {
        let start = instant(&random)
        let length = Int.random(in: 0..<5, using: &random) == 0 ? Double.random(in: 3_600..<72_000, using: &random)
            : Double.random(in: 1..<7_200, using: &random)
        let end = start.addingTimeInterval(length)
        var breaks: [Break] = []
        var cursor = start
        for _ in 0..<Int.random(in: 0..<3, using: &random) {
            let from = cursor.addingTimeInterval(Double.random(in: 0..<(length / 3), using: &random))
            let to = Int.random(in: 0..<6, using: &random) == 0 ? nil : from.addingTimeInterval(Double.random(in: 0..<(length / 4), using: &random))
            breaks.append(Break(start: from, end: to.map { min($0, end) }))
            cursor = to ?? end
            if to == nil { break }
        }
        let away = (0..<Int.random(in: 0..<2, using: &random)).map { _ in
            let from = start.addingTimeInterval(Double.random(in: 0..<length, using: &random))
            return AwayStretch(reason: .idle, start: from, end: from.addingTimeInterval(Double.random(in: 0..<1_800, using: &random)),
                               threshold: Double.random(in: 0..<600, using: &random), kept: Bool.random(using: &random))
        }
        let outcome: SessionOutcome = Bool.random(using: &random) ? .completed : .stopped
        return Session(id: id, groupId: groups.randomElement(using: &random)!, startedAt: start,
                       plannedEnd: Bool.random(using: &random) ? end : nil, endedAt: end, outcome: outcome, strict: false,
                       breaks: breaks, tags: [], note: nil, origin: .manual,
                       cycle: Int.random(in: 0..<4, using: &random) == 0 ? .fixed(work: 1_500, breakLength: 300) : nil,
                       away: away.isEmpty ? nil : away)
    }

    /// A report's range: none, or instants drawn as sessions' are, or month starts.
    static func range(_ random: inout Seeded) -> (Date?, Date?) {
        func bound() -> Date? {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return nil
            case 1: return monthStart(Int.random(in: 0...7, using: &random))
            default: return instant(&random)
            }
        }
        let (a, b) = (bound(), bound())
        if let a, let b, a >= b { return (b == a ? nil : b, a) }
        return (a, b)
    }

    func reports(_ history: InMemorySessionHistory, store: InMemoryHistorySummaryStore, zone: TimeZoneRules,
                 range: (Date?, Date?), by grouping: ReportGrouping) async throws -> (read: Report, summarised: Report, used: Int) {
        let groups = GroupRepositoryLookup(groups: InMemoryGroupRepository())
        let calendar = IntervalCalendar(timeZone: zone)
        let read = try await ReportUseCase(history: history, groups: groups, calendar: calendar)
            .execute(since: range.0, until: range.1, by: grouping)
        let summarised = try await ReportUseCase(history: history, groups: groups, calendar: calendar, summaries: store,
                                                 clock: ManualClock(now: Self.now))
            .execute(since: range.0, until: range.1, by: grouping)
        // The same again, through the parts, to count the summaries taken.
        let builder = ReportBuilder(grouping: grouping, timeZone: zone, groupNames: [:])
        let parts = try await SummarizedHistory(history: history, store: store, builder: builder, now: Self.now)
            .read(HistoryQuery(since: range.0, until: range.1))
        #expect(builder.build(parts.spans, summaries: parts.summaries, since: range.0, until: range.1) == read)
        return (read, summarised, parts.summaries.count)
    }

    @Test("random histories, amended and added to, in random zones and ranges, by day and week: equal to the bit")
    func equalOverRandomHistories() async throws {
        var random = Seeded(seed: 45)
        var used = 0, compared = 0
        for round in 0..<40 {
            let sessions = (0..<Int.random(in: 0..<160, using: &random)).map { _ in Self.session(&random) }
            let history = InMemorySessionHistory(sessions)
            let store = InMemoryHistorySummaryStore()
            for step in 0..<4 {
                let zone = Self.zones.randomElement(using: &random)!
                let grouping: ReportGrouping = Bool.random(using: &random) ? .day : .week
                let range = step == 0 ? (nil, nil) : Self.range(&random)
                // Twice: the first makes the summaries, the second takes them.
                for _ in 0..<2 {
                    let (read, summarised, taken) = try await reports(history, store: store, zone: zone, range: range, by: grouping)
                    #expect(summarised == read, "round \(round), step \(step), \(zone.identifier), \(grouping), \(range)")
                    #expect(summarised.buckets.map(\.focusedSeconds.bitPattern) == read.buckets.map(\.focusedSeconds.bitPattern))
                    used += taken
                    compared += 1
                }
                // History changes under the summaries: a late session in a
                // sealed month, an edit that moves one, a deletion.
                try await history.append(Self.session(&random))
                if let target = sessions.randomElement(using: &random) {
                    let moved = Self.session(&random, id: target.id)
                    try await history.amend(.revise(moved, at: Self.now))
                }
                if Bool.random(using: &random), let gone = sessions.randomElement(using: &random) {
                    try await history.amend(.delete(gone.id, at: Self.now))
                }
            }
        }
        #expect(compared == 320)
        #expect(used > 300, "summaries were taken: \(used)")
    }

    @Test("months kept together know which of them share a session, by its id's hash")
    func sharing() {
        func month(_ fingerprints: [UInt64]) -> MonthSummary {
            MonthSummary(version: "", starts: nil, firstDay: 0, dayStarts: [], days: [], stretches: [], fingerprints: fingerprints)
        }
        let id = SessionID()
        let kept = HistorySummaries(months: ["2024-01": month([1, 5, MonthSummary.fingerprint(of: id)].sorted()), "2024-02": month([2, 6]),
                                             "2024-03": month([3, MonthSummary.fingerprint(of: id)].sorted())])
        #expect(kept.sharing == ["2024-01", "2024-03"])
        #expect(HistorySummaries(months: ["2024-01": month([1]), "2024-02": month([2])]).sharing.isEmpty)
    }

    @Test("a month of overlapping sessions across midnight and the month's end, by day in Berlin: the shared days summed again")
    func sharedDays() async throws {
        let berlin = try #require(SystemTimeZone.named("Europe/Berlin"))
        // 22:30Z on 31 March is 00:30 on 1 April in Berlin: the local day
        // straddles two UTC months, each summarised on its own.
        let start = Self.monthStart(3).addingTimeInterval(-5_400)
        let sessions = (0..<6).map { index in
            Session(id: SessionID(), groupId: Self.groups[0], startedAt: start.addingTimeInterval(Double(index) * 1_800.25),
                    plannedEnd: nil, endedAt: start.addingTimeInterval(Double(index) * 1_800.25 + 2_700.125), outcome: .stopped,
                    strict: false, breaks: [], tags: [], note: nil, origin: .manual)
        }
        let history = InMemorySessionHistory(sessions)
        let store = InMemoryHistorySummaryStore()
        for _ in 0..<2 {
            let (read, summarised, taken) = try await reports(history, store: store, zone: berlin, range: (nil, nil), by: .day)
            #expect(summarised == read)
            #expect(taken == 2)
        }
    }
}
