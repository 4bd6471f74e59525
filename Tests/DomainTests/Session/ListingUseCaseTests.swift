import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// What `log` and `schedule list|show` print comes whole from their use
/// cases: the sessions or schedules with their groups' names.
@Suite("Listing sessions and schedules with their groups' names")
struct ListingUseCaseTests {
    let groups = InMemoryGroupRepository()
    let history = InMemorySessionHistory()
    let schedules = InMemoryScheduleRepository()
    let clock = ManualClock(now: Fixtures.instant(86_400))

    var log: SessionLogUseCase { SessionLogUseCase(history: history, groups: GroupRepositoryLookup(groups: groups), clock: clock) }
    var listing: ListSchedulesUseCase { ListSchedulesUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups)) }

    @Test("log names each session by the name its group ran under, the name now beside it where that differs; deleted groups have none")
    func logNames() async throws {
        let work = Fixtures.group("Work"), play = Fixtures.group("Play")
        try await groups.insert(work)
        try await groups.insert(play)
        // Recorded under the name the group had then.
        let renamed = Session(groupId: work.id, startedAt: Fixtures.instant(0), plannedEnd: Fixtures.instant(600), groupName: "Old Work")
            .ending(at: Fixtures.instant(600), outcome: .completed)
        let unnamed = Fixtures.endedSession(group: play.id, startingAt: 1_000)
        let orphan = Fixtures.endedSession(group: GroupID(), startingAt: 2_000)
        for session in [renamed, unnamed, orphan] { try await history.append(session) }

        let read = try await log.execute()
        #expect(read.sessions.map(\.id) == [orphan.id, unnamed.id, renamed.id])
        #expect(read.sessions.map { read.groupName(of: $0) } == [nil, "Play", "Old Work"])
        #expect(read.sessions.map { read.currentGroupName(of: $0) } == [nil, nil, "Work"])
        #expect(read.readAt == clock.now())
    }

    @Test("log keeps one group's sessions by its name in any case; an unknown name is group.notFound")
    func logByGroup() async throws {
        let work = Fixtures.group("Work"), play = Fixtures.group("Play")
        try await groups.insert(work)
        try await groups.insert(play)
        try await history.append(Fixtures.endedSession(group: work.id, startingAt: 0))
        try await history.append(Fixtures.endedSession(group: play.id, startingAt: 1_000))
        #expect(try await log.execute(groupNamed: "WORK").sessions.map(\.groupId) == [work.id])
        await #expect(throws: SessionError.groupNotFound(name: "nope")) { try await log.execute(groupNamed: "nope") }
    }

    @Test("schedules are listed with their groups' names now (none once deleted); show finds one by name or says it is not found")
    func scheduleNames() async throws {
        let work = Fixtures.group("Work")
        try await groups.insert(work)
        let mornings = Fixtures.schedule("mornings", group: work.id), orphan = Fixtures.schedule("evenings", group: GroupID())
        try await schedules.insert(mornings)
        try await schedules.insert(orphan)
        let listed = try await listing.all()
        #expect(Set(listed.map(\.schedule.name)) == ["mornings", "evenings"])
        #expect(listed.first { $0.schedule.id == mornings.id }?.groupName == "Work")
        #expect(listed.first { $0.schedule.id == orphan.id }?.groupName == nil)
        #expect(try await listing.named("MORNINGS") == NamedSchedule(schedule: mornings, groupName: "Work"))
        await #expect(throws: ScheduleError.notFound(name: "nope")) { try await listing.named("nope") }
    }
}
