import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// `daemon status`'s outlook: whether the daemon runs and for how long, and
/// what it does next, whichever of the session's end and the next interval
/// event comes first. On the manual clock, in UTC (the calendar is given
/// its zone, not the machine's).
@Suite("What the daemon does next")
struct DaemonOutlookUseCaseTests {
    struct Presence: DaemonPresence {
        var daemon: RunningDaemon?
        func running() -> RunningDaemon? { daemon }
    }

    let sessions = InMemorySessionRepository()
    let schedules = InMemoryScheduleRepository()
    // 2027-01-15 08:00 UTC.
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))

    func outlook(_ presence: Presence) -> DaemonOutlookUseCase {
        let calendar = IntervalCalendar(timeZone: .utc)
        return DaemonOutlookUseCase(daemon: presence, sessions: sessions,
                                    upcoming: UpcomingEventsUseCase(schedules: schedules, calendar: calendar, clock: clock), clock: clock)
    }

    @Test("a running daemon's uptime is from its start; with nothing due, nothing is next")
    func uptime() async {
        let since = clock.now().addingTimeInterval(-90)
        let seen = await outlook(Presence(daemon: RunningDaemon(pid: 42, since: since))).execute()
        #expect(seen == .init(running: RunningDaemon(pid: 42, since: since), uptime: 90, next: nil))
        #expect(await outlook(Presence()).execute() == .init(running: nil, uptime: nil, next: nil))
    }

    @Test("the active session's end comes next when it is before the next interval event, and the event when it is not")
    func whicheverFirst() async throws {
        let schedule = Schedule(name: "mornings", groupId: GroupID(), from: TimeOfDay(parsing: "09:00")!, to: TimeOfDay(parsing: "12:00")!,
                                weekdays: Set(Weekday.allCases), warnSeconds: 0, strict: false)
        try await schedules.insert(schedule)
        let nineOClock = clock.now().addingTimeInterval(3_600)
        #expect(await outlook(Presence()).execute().next == .init(what: .interval(.intervalDidStart, schedule: "mornings"), at: nineOClock))

        let session = Session(groupId: GroupID(), startedAt: clock.now(), plannedEnd: clock.now().addingTimeInterval(1_500))
        #expect(try await sessions.replace(nil, with: session))
        #expect(await outlook(Presence()).execute().next == .init(what: .endSession, at: session.plannedEnd!))

        let long = Session(groupId: GroupID(), startedAt: clock.now(), plannedEnd: clock.now().addingTimeInterval(7_200))
        #expect(try await sessions.replace(session, with: long))
        #expect(await outlook(Presence()).execute().next?.what == .interval(.intervalDidStart, schedule: "mornings"))
    }
}
