import Adapters
import Domain
import Foundation
import Testing

/// One name made on two devices before they saw each other is one record
/// (issue 31): a group's and a schedule's id is named after its name, so
/// both devices write the same record and the merge joins them.
@Suite("Ids named after names")
struct NameBasedIDTests {
    let clock = ManualClock()

    @Test("`work` made on two devices, in any case, gets one id; another name another")
    func oneNameOneGroupID() async throws {
        let laptop = InMemoryGroupRepository(), desktop = InMemoryGroupRepository()
        let onLaptop = try await CreateGroupUseCase(groups: laptop, clock: clock).execute(name: "work", targets: ["slack.com"])
        let onDesktop = try await CreateGroupUseCase(groups: desktop, clock: clock).execute(name: " WORK ", targets: ["news.com"])
        #expect(onLaptop.id == onDesktop.id)
        let play = try await CreateGroupUseCase(groups: desktop, clock: clock).execute(name: "play")
        #expect(play.id != onDesktop.id)
    }

    @Test("a group renamed since keeps its id; the name made again takes the next one, and the renamed group is untouched")
    func aRenamedGroupKeepsItsID() async throws {
        let groups = InMemoryGroupRepository()
        let auth = AuthWorld()
        let first = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work", targets: ["slack.com"])
        _ = try await RenameGroupUseCase(groups: groups, lock: StubLock(), override: auth.override, clock: clock, dataLock: InMemoryDataLock())
            .execute(name: "work", to: "deep")
        let again = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work")
        #expect(again.id != first.id)
        #expect(try await groups.group(id: first.id)?.name.rawValue == "deep")
        #expect(try await groups.group(id: first.id)?.targets.map(\.description) == ["slack.com"])
        // Made on a device that knows the same history, it is the same id again.
        #expect(GroupID.made(as: try GroupName("Work"), among: [first.id]) == again.id)
    }

    @Test("a deleted group's name made again takes its id again")
    func aDeletedNameIsMadeAgain() async throws {
        let groups = InMemoryGroupRepository()
        let first = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work")
        try await groups.delete(id: first.id)
        #expect(try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work").id == first.id)
    }

    @Test("a schedule added under one name on two devices gets one id; a name a renamed schedule's id holds, the next")
    func oneNameOneScheduleID() async throws {
        var ids: [ScheduleID] = []
        for _ in 0..<2 {
            let groups = InMemoryGroupRepository(), schedules = InMemoryScheduleRepository()
            _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work")
            let add = AddScheduleUseCase(schedules: schedules, groups: GroupRepositoryLookup(groups: groups), dataLock: InMemoryDataLock())
            ids.append(try await add.execute(.init(name: "Mornings", groupName: "work", from: "09:00", to: "12:00")).schedule.id)
            var renamed = try #require(try await schedules.schedule(named: "mornings"))
            renamed.name = "early"
            try await schedules.update(renamed)
            let again = try await add.execute(.init(name: "MORNINGS", groupName: "work", from: "09:00", to: "10:00")).schedule
            #expect(again.id != renamed.id)
        }
        #expect(ids[0] == ids[1])
    }

    @Test("a name's id is the version 5 UUID of its comparison key, as Python's uuid5 gives it, and stays so across releases")
    func stable() throws {
        // Pinned: a release that changed these would split one name into two
        // records between devices running different releases.
        #expect(GroupID.made(as: try GroupName("Work"), among: []).description == "95e031e7-2acb-5f1c-a46c-5882514c84f0")
        #expect(GroupID.made(as: try GroupName("work"), among: [GroupID("95e031e7-2acb-5f1c-a46c-5882514c84f0")!]).description
                == "ccab0001-2bd6-56f7-9ce3-262fa3fe8210")
        #expect(ScheduleID.made(as: "Mornings", among: []).description == "5acfb0a0-1ee4-50e5-83c8-d52078199dbe")
    }
}
