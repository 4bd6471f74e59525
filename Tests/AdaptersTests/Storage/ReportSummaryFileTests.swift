import Adapters
import Domain
import Foundation
import Testing

/// Reports from summaries over real history files: whatever changes under
/// a summary (an edit of its month, a late device, damage, another zone),
/// the report is the one of reading every session.
@Suite("Report summaries over history files: stale, damaged or late, never a different report")
struct ReportSummaryFileTests {
    let directory = TemporaryDirectory()
    /// Long after every month the tests write: all of them are over.
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    var historyFolder: String { directory.file("history") }
    var summariesFile: String { directory.file("devices/this/snapshots/history.summaries") }

    /// A device's history whose files all count as settled (the wall clock
    /// read far ahead), unless `wall` says otherwise.
    func history(_ device: String = "device-a", wall: (@Sendable () -> Int64)? = nil) -> JSONLinesSessionHistory {
        JSONLinesSessionHistory(directory: historyFolder, deviceID: device, logger: Logger(label: "t", handler: InMemoryLogHandler()),
                                wallNanoseconds: wall ?? { 4_000_000_000 * 1_000_000_000 })
    }

    func store() throws -> FileHistorySummaryStore {
        let folder = directory.file("devices/this")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return FileHistorySummaryStore(deviceFolder: { folder })
    }

    static func session(_ start: String, minutes: Double, id: SessionID = SessionID(), outcome: SessionOutcome = .completed) -> Session {
        let begin = Timestamp.parse(start)!.addingTimeInterval(0.123_456_7)
        let end = begin.addingTimeInterval(minutes * 60 + 0.000_3)
        return Session(id: id, groupId: GroupID(), startedAt: begin, plannedEnd: end, endedAt: end, outcome: outcome, strict: false,
                       breaks: [], tags: [], note: nil, origin: .manual)
    }

    /// Sessions every 7 hours 13 minutes from January to May 2025, each an
    /// hour and a half: across midnights and the months' ends.
    static let sessions = (0..<480).map { index in
        session(Timestamp.format(Date(timeIntervalSince1970: 1_735_689_600 + Double(index) * 25_980)), minutes: 90)
    }

    /// The report without summaries and with them, twice (made, then taken).
    func expectSameReports(_ history: JSONLinesSessionHistory, _ store: FileHistorySummaryStore, zone: TimeZoneRules = .utc,
                           since: Date? = nil, until: Date? = nil, _ what: String) async throws {
        let groups = GroupRepositoryLookup(groups: InMemoryGroupRepository())
        let calendar = IntervalCalendar(timeZone: zone)
        for grouping in [ReportGrouping.day, .week] {
            let read = try await ReportUseCase(history: history, groups: groups, calendar: calendar)
                .execute(since: since, until: until, by: grouping)
            for pass in ["made", "taken"] {
                let summarised = try await ReportUseCase(history: history, groups: groups, calendar: calendar, summaries: store,
                                                         clock: ManualClock(now: Self.now))
                    .execute(since: since, until: until, by: grouping)
                #expect(summarised == read, "\(what), by \(grouping), summaries \(pass)")
            }
        }
    }

    func kept() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: summariesFile)) }

    @Test("an edit of a sealed month (a session tracked into it, one moved out, one deleted): the summary is made again")
    func staleAfterAnEdit() async throws {
        let history = history(), store = try store()
        try await history.append(contentsOf: Self.sessions)
        try await expectSameReports(history, store, "before")
        let first = try kept()
        #expect(await store.summaries().months.count == 5, "January to May")
        try await history.append(Self.session("2025-02-14T10:00:00Z", minutes: 600))
        try await expectSameReports(history, store, "a session tracked into February")
        #expect(try kept() != first, "February's summary made again")
        let moved = Self.session("2025-05-30T23:50:00Z", minutes: 45, id: Self.sessions[100].id)
        try await history.amend(.revise(moved, at: Self.now))
        try await expectSameReports(history, store, "a session moved from March to May")
        try await history.amend(.delete(Self.sessions[7].id, at: Self.now))
        try await expectSameReports(history, store, zone: SystemTimeZone.named("Europe/Berlin") ?? .utc, "a session deleted")
    }

    @Test("a damaged summaries file: the same report, and the file is made again")
    func damagedFile() async throws {
        let history = history(), store = try store()
        try await history.append(contentsOf: Self.sessions)
        try await expectSameReports(history, store, "before")
        let good = try kept()
        for damage in [Data("garbage".utf8), good.prefix(good.count / 3), Data(good.map { $0 ^ 0x5A })] {
            try damage.write(to: URL(fileURLWithPath: summariesFile))
            try await expectSameReports(history, store, "over damage")
            #expect(try kept() == good, "the same summaries made again")
        }
    }

    @Test("another device's month arriving late, and a sync tool's conflict copy of it: counted, each session once")
    func lateDevice() async throws {
        let history = history(), store = try store()
        try await history.append(contentsOf: Self.sessions)
        try await expectSameReports(history, store, "one device")
        // Device B's March: its own sessions, and two that A holds too (an
        // export imported on both, a scheduled interval both daemons ran).
        let other = self.history("device-b")
        let march = (0..<40).map { Self.session("2025-03-\(10 + $0 / 8)T0\($0 % 8):30:00Z", minutes: 50) }
        try await other.append(contentsOf: march + [Self.sessions[250], Self.sessions[251]])
        try await expectSameReports(history, store, "B's March arrived")
        let conflict = historyFolder + "/device-b/2025-03.sync-conflict-20250401-101010-ABCDEFG.jsonl"
        try FileManager.default.copyItem(atPath: historyFolder + "/device-b/2025-03.jsonl", toPath: conflict)
        try await other.append(Self.session("2025-03-20T12:00:00Z", minutes: 30))
        try await expectSameReports(history, store, "a conflict copy beside it")
        try await expectSameReports(history, store, since: Timestamp.parse("2025-02-01T00:00:00Z"),
                                    until: Timestamp.parse("2025-04-01T00:00:00Z"), "February and March only")
        // A copy of one of A's March lines in B's April file (filed under
        // another month by hand): two months' summaries hold its id.
        let line = try String(contentsOfFile: historyFolder + "/device-a/2025-03.jsonl", encoding: .utf8)
            .split(separator: "\n")[3]
        let april = historyFolder + "/device-b/2025-04.jsonl"
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: april))
        try await expectSameReports(history, store, "a March session in B's April file too")
        try await expectSameReports(history, store, since: Timestamp.parse("2025-03-01T00:00:00Z"),
                                    until: Timestamp.parse("2025-04-15T00:00:00Z"), "March summarised, April read, both holding it")
        // Another in a month not over yet, which is read, never summarised.
        try FileManager.default.removeItem(atPath: april)
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: historyFolder + "/device-b/2031-01.jsonl"))
        try await expectSameReports(history, store, "a March session in a month not over yet too")
    }

    @Test("segments that changed within the file times' tick are read, not summarised; settled, they are")
    func unsettledSegments() async throws {
        try await history().append(contentsOf: Self.sessions)
        let segment = historyFolder + "/device-a/2025-01.jsonl"
        let changed = try #require(FileManager.default.attributesOfItem(atPath: segment)[.modificationDate] as? Date)
        // The wall clock read 50 ms after the first segment was written
        // (the others later): too soon to trust a stamp, since a change
        // in the same tick of the file times might not move it.
        let soon = Int64((changed.timeIntervalSince1970 + 0.05) * 1e9)
        let store = try store()
        try await expectSameReports(history(wall: { soon }), store, "just written")
        #expect(await store.summaries() == HistorySummaries())
        try await expectSameReports(history(), store, "settled")
        #expect(await store.summaries().months.count == 5)
    }

    @Test("another time zone's days: the summaries are made again for them, and the reports stay the same")
    func otherZone() async throws {
        let history = history(), store = try store()
        try await history.append(contentsOf: Self.sessions)
        for zone in ["Europe/Berlin", "America/Santiago", "Asia/Kathmandu", "UTC"].compactMap({ SystemTimeZone.named($0) }) {
            try await expectSameReports(history, store, zone: zone, zone.identifier)
        }
    }
}
