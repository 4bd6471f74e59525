import Adapters
import Domain
import Foundation
import Testing

/// Issue 28, item 10: a strict schedule is not weakened just before its
/// interval. Removing or disabling it waits for the end of its next
/// interval (recorded as pending), unless the passcode is given; enabling
/// withdraws the wait. All on the manual clock, in UTC.
@Suite("Strict schedules")
struct StrictScheduleTests {
    let schedules = InMemoryScheduleRepository()
    let groups = InMemoryGroupRepository()
    let auth: AuthWorld
    let calendar = IntervalCalendar(timeZone: .utc)
    /// 2027-01-11 is a Monday; at 08:55 UTC, five minutes before the interval.
    static let monday0855 = Date(timeIntervalSince1970: 1_799_657_700)

    init() async throws {
        auth = AuthWorld(clock: ManualClock(now: Self.monday0855))
        try await groups.insert(Group(name: try GroupName("work"), createdAt: Date()))
        _ = try await AddScheduleUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), dataLock: InMemoryDataLock(),
                                         clock: auth.clock)
            .execute(.init(name: "mornings", groupName: "work", from: "09:00", to: "12:00", days: "weekdays", strict: true))
    }

    var change: ChangeScheduleUseCase {
        ChangeScheduleUseCase(schedules: schedules, dataLock: InMemoryDataLock(), clock: auth.clock, calendar: calendar, override: auth.override)
    }
    var listing: ListSchedulesUseCase { ListSchedulesUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), clock: auth.clock) }
    var noon: Date { Self.monday0855.addingTimeInterval(3 * 3_600 + 5 * 60) }

    @Test("the clock is where the test thinks: Monday 08:55 UTC")
    func fixture() {
        #expect(Weekday(daysSinceEpoch: calendar.localDay(of: Self.monday0855)) == .mon)
        #expect(Int(Self.monday0855.timeIntervalSince1970) % 86_400 == 8 * 3_600 + 55 * 60)
    }

    @Test("removing it five minutes before its interval waits for that interval's end; the interval still runs, strict")
    func removeWaits() async throws {
        let asked = try await change.remove(named: "mornings")
        #expect(asked.pending == PendingScheduleChange(kind: .remove, effectiveAt: noon))
        #expect(try await schedules.all().count == 1, "still there")
        let events = calendar.upcomingEvents(of: try await schedules.all(), from: auth.clock.now(), count: 10)
        #expect(events.map(\.kind) == [.intervalDidStart, .intervalDidEnd], "this interval, and nothing after it")
        #expect(events.first?.schedule.strict == true && events.first?.at == noon.addingTimeInterval(-3 * 3_600))

        auth.clock.advance(by: 2 * 3_600)   // 10:55, in the interval
        #expect(try await listing.all().first?.schedule.pending?.kind == .remove, "list shows the pending removal")
        auth.clock.setWallClock(to: noon)
        #expect(try await listing.all().isEmpty, "gone at its interval's end")
        try await change.settle()
        #expect(try await schedules.all().isEmpty, "and gone from the store once settled")
    }

    @Test("disabling during its interval waits for that interval's end, then it is disabled")
    func disableDuringInterval() async throws {
        auth.clock.advance(by: 3_600)   // 09:55
        let asked = try await change.setEnabled(false, named: "mornings")
        #expect(asked.enabled && asked.pending == PendingScheduleChange(kind: .disable, effectiveAt: noon))
        auth.clock.setWallClock(to: noon.addingTimeInterval(1))
        let shown = try await listing.named("mornings").schedule
        #expect(!shown.enabled && shown.pending == nil)
        #expect(calendar.upcomingEvents(of: try await schedules.all(), from: auth.clock.now(), count: 5).isEmpty, "no later interval runs")
    }

    @Test("enable withdraws a pending change; a second removal never pushes the time later")
    func enableWithdraws() async throws {
        try await change.remove(named: "mornings")
        let again = try await change.remove(named: "mornings")
        #expect(again.pending?.effectiveAt == noon)
        let enabled = try await change.setEnabled(true, named: "mornings")
        #expect(enabled.pending == nil && enabled.enabled)
        auth.clock.setWallClock(to: noon.addingTimeInterval(3_600))
        #expect(try await listing.all().count == 1, "kept")
        #expect(calendar.upcomingEvents(of: try await schedules.all(), from: auth.clock.now(), count: 2).count == 2, "its next intervals run")
    }

    @Test("with the passcode the change is made at once; a wrong one is refused; asking with none set is refused")
    func passcode() async throws {
        await #expect(throws: ScheduleError.strict(name: "mornings", until: noon)) {
            try await change.remove(named: "mornings", passcode: Passcode("1234"))
        }
        try await auth.set.execute(Passcode("right-one"))
        await #expect(throws: AuthError.self) { try await change.remove(named: "mornings", passcode: Passcode("wrong-one")) }
        #expect(try await schedules.all().first?.pending == nil, "nothing recorded by a refusal")
        let removed = try await change.remove(named: "mornings", passcode: Passcode("right-one"))
        #expect(removed.pending == nil)
        #expect(try await schedules.all().isEmpty)
    }

    @Test("a schedule that is not strict, or already disabled, changes at once")
    func notStrict() async throws {
        _ = try await AddScheduleUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), dataLock: InMemoryDataLock())
            .execute(.init(name: "loose", groupName: "work", from: "09:00", to: "12:00"))
        #expect(try await change.setEnabled(false, named: "loose").enabled == false)
        try await change.remove(named: "loose")
        auth.clock.setWallClock(to: noon)
        #expect(try await change.setEnabled(false, named: "mornings").enabled == true, "strict, and its next interval is tomorrow's")
        let rest = try await schedules.all()
        #expect(rest.map(\.name) == ["mornings"] && rest[0].pending?.effectiveAt == noon.addingTimeInterval(86_400))
    }

    @Test("a name whose removal has taken effect can be added again")
    func nameFreed() async throws {
        try await change.remove(named: "mornings")
        auth.clock.setWallClock(to: noon)
        let added = try await AddScheduleUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), dataLock: InMemoryDataLock(),
                                                 clock: auth.clock)
            .execute(.init(name: "mornings", groupName: "work", from: "13:00", to: "14:00"))
        #expect(try await schedules.all().map(\.id) == [added.schedule.id])
    }
}
