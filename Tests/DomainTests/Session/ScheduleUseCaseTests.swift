import Adapters
import Domain
import Foundation
import Testing

@Suite("Schedule use cases")
struct ScheduleUseCaseTests {
    let schedules = InMemoryScheduleRepository()
    let groups = InMemoryGroupRepository()

    init() async throws {
        try await groups.insert(Group(name: try GroupName("work"), createdAt: Date()))
    }

    var add: AddScheduleUseCase { AddScheduleUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), dataLock: InMemoryDataLock()) }

    @Test("add stores a valid schedule on the group, with its days, warning and strictness, and names the group as stored")
    func addValid() async throws {
        let added = try await add.execute(.init(name: " Mornings ", groupName: "WORK", from: "09:00", to: "12:00:30",
                                                days: "weekdays", warnSeconds: 300, strict: true))
        let schedule = added.schedule
        #expect(added.groupName == "work")
        #expect(schedule.name == "Mornings" && schedule.weekdays == Weekday.weekdays && schedule.warnSeconds == 300 && schedule.strict)
        #expect(schedule.to.description == "12:00:30" && schedule.enabled)
        #expect(try await schedules.all() == [schedule])
    }

    @Test("bad input is refused with its own error, and nothing is stored", arguments: [
        (AddScheduleUseCase.Request(name: "", groupName: "work", from: "09:00", to: "10:00"), "schedule.invalidName"),
        (.init(name: "a/b", groupName: "work", from: "09:00", to: "10:00"), "schedule.invalidName"),
        (.init(name: "m", groupName: "work", from: "9:00", to: "10:00"), "schedule.invalidTime"),
        (.init(name: "m", groupName: "work", from: "09:00", to: "24:00"), "schedule.invalidTime"),
        (.init(name: "m", groupName: "work", from: "09:00", to: "09:00"), "schedule.emptyInterval"),
        (.init(name: "m", groupName: "work", from: "09:00", to: "10:00", days: "someday"), "schedule.invalidDays"),
        (.init(name: "m", groupName: "work", from: "09:00", to: "10:00", warnSeconds: 90_000), "schedule.invalidWarning"),
        (.init(name: "m", groupName: "play", from: "09:00", to: "10:00"), "group.notFound"),
    ])
    func refusals(request: AddScheduleUseCase.Request, code: String) async throws {
        let error = await #expect(throws: ScheduleError.self) { try await add.execute(request) }
        #expect(error?.code == code)
        #expect(try await schedules.all().isEmpty)
    }

    @Test("names are unique ignoring case; remove, enable and disable find a schedule by name")
    func changes() async throws {
        _ = try await add.execute(.init(name: "m", groupName: "work", from: "09:00", to: "10:00"))
        await #expect(throws: ScheduleError.alreadyExists(name: "m")) {
            try await add.execute(.init(name: "M", groupName: "work", from: "11:00", to: "12:00"))
        }
        let auth = AuthWorld()
        let change = ChangeScheduleUseCase(schedules: schedules, dataLock: InMemoryDataLock(), clock: auth.clock,
                                           calendar: IntervalCalendar(timeZone: .utc), override: auth.override)
        #expect(try await change.setEnabled(false, named: "M").enabled == false)
        #expect(try await schedules.all().first?.enabled == false)
        #expect(try await change.setEnabled(true, named: "m").enabled)
        try await change.remove(named: "m")
        #expect(try await schedules.all().isEmpty)
        await #expect(throws: ScheduleError.notFound(name: "m")) { try await change.remove(named: "m") }
    }
}
