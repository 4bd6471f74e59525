import Domain
import Foundation
import Testing

/// What `schedule add` warns of (issue 29): overlaps and a warning lead as
/// long as the interval. Pure clock-face arithmetic, no clock.
@Suite("Schedule advice")
struct ScheduleAdviceTests {
    private func schedule(_ name: String, _ from: String, _ to: String, _ days: Set<Weekday> = Set(Weekday.allCases),
                          warn: TimeInterval = 0, enabled: Bool = true) -> Schedule {
        Schedule(name: name, groupId: GroupID(), from: TimeOfDay(parsing: from)!, to: TimeOfDay(parsing: to)!, weekdays: days,
                 warnSeconds: warn, enabled: enabled)
    }

    @Test("an overlap names the other schedule and the days; touching ends, other days and disabled schedules do not count")
    func overlaps() {
        let mornings = schedule("mornings", "09:00", "12:00", Weekday.weekdays)
        #expect(ScheduleAdvice.warnings(for: schedule("late", "11:00", "13:00", [.mon, .sat]), among: [mornings]).first?
            .contains("overlaps 'mornings' on mon") == true)
        #expect(ScheduleAdvice.warnings(for: schedule("after", "12:00", "13:00"), among: [mornings]).isEmpty, "12:00 ends where 12:00 starts")
        #expect(ScheduleAdvice.warnings(for: schedule("weekend", "10:00", "11:00", Weekday.weekends), among: [mornings]).isEmpty)
        #expect(ScheduleAdvice.warnings(for: schedule("x", "10:00", "11:00"), among: [schedule("off", "10:30", "11:30", enabled: false)]).isEmpty)
    }

    @Test("an interval across midnight overlaps the next day's, Sunday night's Monday's")
    func acrossMidnight() {
        let night = schedule("night", "23:00", "02:00", [.sun])
        let early = schedule("early", "01:00", "03:00", [.mon])
        #expect(ScheduleAdvice.warnings(for: early, among: [night]).first?.contains("overlaps 'night' on mon") == true)
        #expect(ScheduleAdvice.warnings(for: night, among: [early]).first?.contains("on sun") == true)
    }

    @Test("a warning lead as long as the interval or longer is warned of; a shorter one is not")
    func warningLead() {
        #expect(ScheduleAdvice.warnings(for: schedule("tiny", "14:00", "14:03", warn: 300), among: []).first?
            .contains("its warning lead (5m) is as long as its interval (3m) or longer") == true)
        #expect(ScheduleAdvice.warnings(for: schedule("ok", "14:00", "15:00", warn: 300), among: []).isEmpty)
    }
}
