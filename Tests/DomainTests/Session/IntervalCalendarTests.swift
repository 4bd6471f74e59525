import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

@Suite("Interval maths")
struct IntervalCalendarTests {
    let utc = IntervalCalendar(timeZone: .utc)
    /// Monday 2026-11-23 00:00 UTC.
    let monday = Timestamp.parse("2026-11-23T00:00:00Z")!

    func schedule(_ name: String, _ from: String, _ to: String, days: Set<Weekday> = Set(Weekday.allCases),
                  warn: TimeInterval = 0) -> Schedule {
        Schedule(name: name, groupId: GroupID(), from: TimeOfDay(parsing: from)!, to: TimeOfDay(parsing: to)!,
                 weekdays: days, warnSeconds: warn)
    }

    func describe(_ events: [IntervalEvent]) -> [String] {
        events.map { "\(Timestamp.format($0.at, fractionDigits: 0)) \($0.schedule.name) \($0.kind.rawValue)" }
    }

    @Test("an interval's four events, in order, with the warning lead")
    func fourEvents() {
        let events = utc.upcomingEvents(of: [schedule("m", "09:00", "12:00", warn: 600)], from: monday, count: 4)
        #expect(describe(events) == [
            "2026-11-23T08:50:00Z m intervalWillStartWarning", "2026-11-23T09:00:00Z m intervalDidStart",
            "2026-11-23T11:50:00Z m intervalWillEndWarning", "2026-11-23T12:00:00Z m intervalDidEnd",
        ])
    }

    @Test("a warning longer than the interval is clamped to its start, after the start event")
    func clampedWarning() {
        let events = utc.upcomingEvents(of: [schedule("short", "09:00", "09:10", warn: 3_600)], from: monday, count: 4)
        #expect(describe(events) == [
            "2026-11-23T08:00:00Z short intervalWillStartWarning", "2026-11-23T09:00:00Z short intervalDidStart",
            "2026-11-23T09:00:00Z short intervalWillEndWarning", "2026-11-23T09:10:00Z short intervalDidEnd",
        ])
    }

    @Test("to before from crosses midnight and belongs to the day it starts")
    func crossingMidnight() {
        let night = schedule("night", "22:00", "06:00", days: [.fri])
        let events = utc.upcomingEvents(of: [night], from: monday, count: 2)
        #expect(describe(events) == ["2026-11-27T22:00:00Z night intervalDidStart", "2026-11-28T06:00:00Z night intervalDidEnd"])
        #expect(events.first?.interval.day == "2026-11-27")
    }

    @Test("back to back: the end of one fires before the start of the next")
    func backToBack() {
        let events = utc.upcomingEvents(of: [schedule("b", "10:00", "11:00"), schedule("a", "09:00", "10:00")], from: monday, count: 4)
        #expect(describe(events) == [
            "2026-11-23T09:00:00Z a intervalDidStart", "2026-11-23T10:00:00Z a intervalDidEnd",
            "2026-11-23T10:00:00Z b intervalDidStart", "2026-11-23T11:00:00Z b intervalDidEnd",
        ])
    }

    @Test("only the schedule's weekdays, only enabled schedules, and an interval in progress still ends")
    func filters() {
        var off = schedule("off", "09:00", "10:00")
        off.enabled = false
        let weekend = schedule("weekend", "09:00", "10:00", days: Weekday.weekends)
        let events = utc.upcomingEvents(of: [off, weekend, schedule("now", "23:00", "01:00")],
                                        from: monday.addingTimeInterval(1_800), count: 3)
        #expect(describe(events) == ["2026-11-23T01:00:00Z now intervalDidEnd", "2026-11-23T23:00:00Z now intervalDidStart",
                                     "2026-11-24T01:00:00Z now intervalDidEnd"])
        #expect(utc.upcomingEvents(of: [weekend], from: monday, count: 1).first?.at == Timestamp.parse("2026-11-28T09:00:00Z"))
    }

    @Test("weekdays count from a Thursday on 1970-01-01")
    func weekdays() {
        #expect(Weekday(daysSinceEpoch: 0) == .thu)
        #expect(Weekday(daysSinceEpoch: -1) == .wed)
        #expect(Weekday(daysSinceEpoch: 20_416) == .mon) // 2025-11-24
    }

    @Test("days are read as names, lists and ranges; anything else is refused, never read as another day",
          arguments: [
              ("mon,WED,friday", [Weekday.mon, .wed, .fri]), ("Monday", [.mon]), (" tue , thu ", [.tue, .thu]),
              ("mon-fri", [.mon, .tue, .wed, .thu, .fri]), ("sat-sun", [.sat, .sun]), ("fri-mon", [.fri, .sat, .sun, .mon]),
              ("wed-wed", [.wed]), ("mon-tue,thursday-friday", [.mon, .tue, .thu, .fri]), ("weekdays", [.mon, .tue, .wed, .thu, .fri]),
              ("WEEKENDS", [.sat, .sun]), ("daily", Weekday.allCases),
          ])
    func daysRead(text: String, days: [Weekday]) {
        #expect(Weekday.parseSet(text) == Set(days))
    }

    @Test("a day misspelt or a range half-written is refused",
          arguments: ["", "mon,,fri", "noday", "monxyz", "mo", "mon-", "-fri", "mon-tue-wed", "mon–fri", "mon fri", "mondays", "weekday"])
    func daysRefused(text: String) {
        #expect(Weekday.parseSet(text) == nil)
    }

    @Test("1,000 enabled schedules: the next event is found", .timeLimit(.minutes(1)))
    func manySchedules() {
        let schedules = (0..<1_000).map { schedule("s\($0)", String(format: "%02d:%02d", $0 % 24, $0 % 60), "23:59:59") }
        let next = utc.upcomingEvents(of: schedules, from: monday.addingTimeInterval(60), count: 1)
        // Independently: the earliest start at or after 00:01, ties to the first name.
        let expected = schedules.filter { $0.from.secondsOfDay >= 60 }
            .min { ($0.from.secondsOfDay, $0.name) < ($1.from.secondsOfDay, $1.name) }!
        #expect(next.map(\.schedule.name) == [expected.name])
        #expect(next.first?.at == monday.addingTimeInterval(Double(expected.from.secondsOfDay)))
    }

    @Test("a calendar looking up its zone asks once, on first use, and uses the answer")
    func zoneLookedUpOnFirstUse() {
        let asked = Mutex(0)
        let calendar = IntervalCalendar(lookingUp: {
            asked.withLock { $0 += 1 }
            return SystemTimeZone.named("Asia/Kolkata")!
        })
        #expect(asked.withLock { $0 } == 0)
        let events = calendar.upcomingEvents(of: [schedule("m", "09:00", "12:00")], from: monday, count: 1)
        #expect(events.first?.at == Timestamp.parse("2026-11-23T03:30:00Z"))
        #expect(calendar.timeZone.identifier == "Asia/Kolkata")
        #expect(asked.withLock { $0 } == 1)
    }
}
