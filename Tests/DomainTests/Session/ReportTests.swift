import Adapters
import Domain
import Foundation
import Testing

@Suite("Reports: buckets in local time, DST included")
struct ReportTests {
    let work = GroupID(), play = GroupID()

    func session(_ start: String, _ end: String, group: GroupID? = nil, outcome: SessionOutcome = .completed,
                 breaks: [(String, String)] = []) -> Session {
        Session(id: SessionID(), groupId: group ?? work, startedAt: Timestamp.parse(start)!, plannedEnd: Timestamp.parse(end)!,
                endedAt: Timestamp.parse(end)!, outcome: outcome, strict: false,
                breaks: breaks.map { Break(start: Timestamp.parse($0)!, end: Timestamp.parse($1)!) }, tags: [], note: nil, origin: .manual)
    }

    func report(_ sessions: [Session], by grouping: ReportGrouping = .day, zone: String = "UTC",
                since: String? = nil, until: String? = nil) -> [String: Double] {
        let report = ReportBuilder(grouping: grouping, timeZone: SystemTimeZone.named(zone)!, groupNames: [work: "work", play: "play"])
            .build(sessions, since: since.flatMap(Timestamp.parse), until: until.flatMap(Timestamp.parse))
        return Dictionary(uniqueKeysWithValues: report.buckets.map { ($0.key, $0.focusedSeconds / 3_600) })
    }

    @Test("overlapping sessions count once: 3h 30m of real time is 3h 30m, by day and by group; each still counts as a session")
    func overlaps() {
        // Nov 20: 09:00-12:00 and an imported 10:30-12:30 overlap; a break in the second is covered by the first.
        let sessions = [session("2026-11-20T09:00:00Z", "2026-11-20T12:00:00Z"),
                        session("2026-11-20T10:30:00Z", "2026-11-20T12:30:00Z", breaks: [("2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z")]),
                        session("2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z", group: play)]
        #expect(report(sessions) == ["2026-11-20": 3.5])
        #expect(report(sessions, by: .group) == ["work": 3.5, "play": 0.5], "within a group, once; across groups, each its own")
        let built = ReportBuilder(grouping: .day, timeZone: .utc, groupNames: [:]).build(sessions, since: nil, until: nil)
        #expect(built.totalSessions == 3)
    }

    @Test("Berlin's 23-hour spring-forward day with overlapping sessions: each hour once, the day still 23 hours at most")
    func dstOverlaps() {
        // The whole of 2026-03-29 local (23:00Z on the 28th to 22:00Z on the 29th, 23 hours), twice over, plus overlaps into the 28th and the 30th.
        let sessions = [session("2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"),
                        session("2026-03-28T22:00:00Z", "2026-03-29T12:00:00Z"),
                        session("2026-03-29T21:00:00Z", "2026-03-29T23:00:00Z")]
        // 22:00Z on the 28th is 23:00 there: the 28th's last hour.
        #expect(report(sessions, zone: "Europe/Berlin") == ["2026-03-28": 1, "2026-03-29": 23, "2026-03-30": 1])
    }

    @Test("an open-ended session ended by stop counts as completed; one stopped before its planned end does not")
    func openEnded() {
        let open = Session(id: SessionID(), groupId: work, startedAt: Timestamp.parse("2026-11-20T09:00:00Z")!, plannedEnd: nil,
                           endedAt: Timestamp.parse("2026-11-20T10:00:00Z")!, outcome: .stopped, strict: false, breaks: [], tags: [],
                           note: nil, origin: .manual)
        let early = session("2026-11-20T11:00:00Z", "2026-11-20T12:00:00Z", outcome: .stopped)
        let total = ReportBuilder(grouping: .day, timeZone: .utc, groupNames: [:]).build([open, early], since: nil, until: nil).total
        #expect(total.completed == 1 && total.stopped == 1 && total.completionRate == 0.5)
    }

    @Test("a session across midnight gives each day its part; breaks are not focused time")
    func midnight() {
        let hours = report([session("2026-11-22T23:00:00Z", "2026-11-23T02:00:00Z",
                                    breaks: [("2026-11-23T00:30:00Z", "2026-11-23T01:00:00Z")])])
        #expect(hours == ["2026-11-22": 1, "2026-11-23": 1.5])
    }

    @Test("Berlin: the spring-forward day has 23 hours, the fall-back day 25, each one bucket")
    func berlin() {
        // 2026-03-28 23:00 CET to 2026-03-30 01:00 CEST; 2026-10-24 23:00 CEST to 2026-10-26 01:00 CET.
        let spring = report([session("2026-03-28T22:00:00Z", "2026-03-29T23:00:00Z")], zone: "Europe/Berlin")
        #expect(spring == ["2026-03-28": 1, "2026-03-29": 23, "2026-03-30": 1])
        let autumn = report([session("2026-10-24T21:00:00Z", "2026-10-26T00:00:00Z")], zone: "Europe/Berlin")
        #expect(autumn == ["2026-10-24": 1, "2026-10-25": 25, "2026-10-26": 1])
    }

    @Test("Santiago: a day whose midnight does not exist starts at 01:00 and has 23 hours")
    func santiago() {
        // 2026-09-05 20:00 -04 to 2026-09-07 02:00 -03.
        let hours = report([session("2026-09-06T00:00:00Z", "2026-09-07T05:00:00Z")], zone: "America/Santiago")
        #expect(hours == ["2026-09-05": 4, "2026-09-06": 23, "2026-09-07": 2])
    }

    @Test("Lord Howe's half-hour DST: the autumn day has 24.5 hours")
    func lordHowe() {
        // 2026-04-05 02:00 +11 becomes 01:30 +10:30; the day runs 2026-04-04T13:00Z to 2026-04-05T13:30Z.
        let hours = report([session("2026-04-04T13:00:00Z", "2026-04-05T13:30:00Z")], zone: "Australia/Lord_Howe")
        #expect(hours == ["2026-04-05": 24.5])
    }

    @Test("weeks are ISO weeks of the local calendar", arguments: [
        ("2024-12-30T12:00:00Z", "2025-W01"), ("2027-01-01T12:00:00Z", "2026-W53"),
        ("2021-01-03T12:00:00Z", "2020-W53"), ("2026-11-22T12:00:00Z", "2026-W47"), ("2026-01-01T12:00:00Z", "2026-W01"),
    ])
    func weeks(instant: String, week: String) {
        let end = Timestamp.parse(instant)!.addingTimeInterval(600)
        #expect(report([session(instant, Timestamp.format(end))], by: .week).keys.contains(week))
    }

    @Test("sessions are counted where they start, with completed and stopped apart; groups sort by focused time")
    func countsAndGroups() {
        let sessions = [
            session("2026-11-20T09:00:00Z", "2026-11-20T10:00:00Z"),
            session("2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z", outcome: .stopped),
            session("2026-11-22T09:00:00Z", "2026-11-22T12:00:00Z", group: play),
        ]
        let byDay = ReportBuilder(grouping: .day, timeZone: .utc, groupNames: [:]).build(sessions, since: nil, until: nil)
        #expect(byDay.buckets.map(\.key) == ["2026-11-20", "2026-11-21", "2026-11-22"], "the empty day is shown")
        #expect(byDay.buckets.map(\.sessions) == [2, 0, 1])
        #expect(byDay.buckets[0].completed == 1 && byDay.buckets[0].stopped == 1 && byDay.buckets[0].completionRate == 0.5)
        #expect(byDay.buckets[1].completionRate == nil)
        #expect(byDay.totalFocusedSeconds == 4.5 * 3_600 && byDay.totalSessions == 3)
        #expect(report(sessions, by: .group) == ["play": 3, "work": 1.5])
        let deleted = ReportBuilder(grouping: .group, timeZone: .utc, groupNames: [:]).build(sessions, since: nil, until: nil)
        #expect(deleted.buckets.map(\.key) == ["(deleted group)"])
    }

    @Test("a range far wider than the sessions shows the sessions' own days, not thousands of empty ones")
    func wideRange() {
        let hours = report([session("2026-11-20T09:00:00Z", "2026-11-20T10:00:00Z")],
                           since: "1900-01-01T00:00:00Z", until: "9999-01-01T00:00:00Z")
        #expect(hours == ["2026-11-20": 1])
        #expect(report([], since: "1900-01-01T00:00:00Z", until: "9999-01-01T00:00:00Z").isEmpty)
        #expect(report([], since: "2026-11-01T00:00:00Z", until: "2026-11-08T00:00:00Z").count == 7, "an empty week is shown")
    }

    @Test("since and until give the range of days shown")
    func range() {
        let hours = report([session("2026-11-20T09:00:00Z", "2026-11-20T10:00:00Z")],
                           since: "2026-11-19T00:00:00Z", until: "2026-11-22T00:00:00Z")
        #expect(hours == ["2026-11-19": 0, "2026-11-20": 1, "2026-11-21": 0])
    }
}
