import Foundation
import Adapters
import Domain
import PortContracts
import Testing

/// A usage query that reports whatever the test says uses a group.
struct StubUsage: GroupUsageQuery {
    var usages: [GroupUsage]
    func usages(of group: GroupID) async throws -> [GroupUsage] { usages }
}

/// A lock that holds every group until `until`, or none.
struct StubLock: GroupLock {
    var until: Date?
    func lockedUntil(_ group: GroupID) async throws -> Date? { until }
    func held(_ group: GroupID) async throws -> [Target] { [] }
    func released(_ targets: [Target], of group: GroupID) async throws {}
}

@Suite("Group use cases")
struct GroupUseCaseTests {
    let groups = InMemoryGroupRepository()
    let clock = ManualClock()
    let auth = AuthWorld()

    @Test("create stores a named group with its targets, stamped now")
    func create() async throws {
        let group = try await CreateGroupUseCase(groups: groups, clock: clock)
            .execute(name: "Work", targets: ["slack.com", "News.example.org", "slack.com", "app:mail"])
        #expect(group.name.rawValue == "Work")
        #expect(group.targets.map(\.description) == ["slack.com", "news.example.org", "app:mail"])
        #expect(group.createdAt == clock.now())
        #expect(try await groups.group(named: "work") == group)
    }

    @Test("create refuses a taken name in any case, a bad name and a bad target, storing nothing")
    func createRefusals() async throws {
        let create = CreateGroupUseCase(groups: groups, clock: clock)
        _ = try await create.execute(name: "Work")
        await #expect(throws: GroupError.alreadyExists(name: "Work")) { try await create.execute(name: "WORK") }
        await #expect(throws: GroupError.invalidName("a/b", reason: "it contains '/'")) { try await create.execute(name: "a/b") }
        await #expect(throws: GroupError.self) { try await create.execute(name: "Play", targets: ["ok.com", "not a domain"]) }
        #expect(try await groups.all().map(\.name.rawValue) == ["Work"])
    }

    @Test("rename keeps the id and moves updatedAt; a taken name is refused")
    func rename() async throws {
        let original = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work")
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Play")
        clock.advance(by: 60)
        let rename = RenameGroupUseCase(groups: groups, lock: StubLock(), override: auth.override, clock: clock, dataLock: InMemoryDataLock())
        let renamed = try await rename.execute(name: "work", to: "Deep Work")
        #expect(renamed.id == original.id)
        #expect(renamed.updatedAt == clock.now())
        #expect(try await groups.group(named: "Deep Work")?.id == original.id)
        await #expect(throws: GroupError.alreadyExists(name: "Play")) { try await rename.execute(name: "Deep Work", to: "play") }
        await #expect(throws: GroupError.notFound(name: "Ghost")) { try await rename.execute(name: "Ghost", to: "x") }
        #expect(try await rename.execute(name: "deep work", to: "DEEP WORK").name.rawValue == "DEEP WORK")
    }

    @Test("block adds new targets only; unblock removes and refuses what is not there")
    func blockAndUnblock() async throws {
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work", targets: ["a.com"])
        let block = BlockTargetsUseCase(groups: groups, clock: clock, dataLock: InMemoryDataLock())
        let unblock = UnblockTargetsUseCase(groups: groups, lock: StubLock(), override: auth.override, clock: clock, dataLock: InMemoryDataLock())
        #expect(try await block.execute(group: "work", targets: ["b.com", "A.com"]).targets.map(\.description) == ["a.com", "b.com"])
        await #expect(throws: GroupError.targetNotInGroup(target: "c.com", group: "Work")) {
            try await unblock.execute(group: "Work", targets: ["a.com", "c.com"])
        }
        #expect(try await groups.group(named: "Work")?.targets.count == 2)
        #expect(try await unblock.execute(group: "Work", targets: ["A.COM"]).targets.map(\.description) == ["b.com"])
        await #expect(throws: GroupError.notFound(name: "nope")) { try await block.execute(group: "nope", targets: ["x.com"]) }
    }

    @Test("delete removes an unused group")
    func delete() async throws {
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work")
        try await DeleteGroupUseCase(groups: groups, lock: StubLock(), override: auth.override, usage: StubUsage(usages: []), dataLock: InMemoryDataLock()).execute(name: "WORK")
        #expect(try await groups.all().isEmpty)
    }

    @Test("usages read as one phrase, schedules together", arguments: [
        ([GroupUsage.schedule("a")], "schedule 'a'"),
        ([.schedule("a"), .schedule("b")], "schedules 'a' and 'b'"),
        ([.schedule("a"), .activeSession("s-1"), .schedule("b"), .schedule("c")], "the active session (s-1) and schedules 'a', 'b' and 'c'"),
        ([.activeSession("s-1")], "the active session (s-1)"),
    ])
    func usagePhrase(usages: [GroupUsage], phrase: String) {
        #expect(GroupUsage.phrase(usages) == phrase)
    }

    @Test("delete is refused while in use, naming every user; the group stays")
    func deleteInUse() async throws {
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work")
        let usage = StubUsage(usages: [.activeSession("s-1"), .schedule("mornings")])
        let error = await #expect(throws: GroupError.self) {
            try await DeleteGroupUseCase(groups: groups, lock: StubLock(), override: auth.override, usage: usage, dataLock: InMemoryDataLock()).execute(name: "Work")
        }
        #expect(error?.description == "group 'Work' is in use by the active session (s-1) and schedule 'mornings'")
        #expect(error?.code == "group.inUse")
        #expect(try await groups.all().count == 1)
    }

    @Test("delete through the real bridge sees the active session")
    func deleteUsedByActiveSession() async throws {
        let group = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work")
        let sessions = InMemorySessionRepository(Fixtures.session(group: group.id))
        await #expect(throws: GroupError.self) {
            try await DeleteGroupUseCase(groups: groups, lock: StubLock(), override: auth.override, usage: SessionGroupUsage(sessions: sessions, schedules: InMemoryScheduleRepository(), clock: clock), dataLock: InMemoryDataLock())
                .execute(name: "Work")
        }
    }

    @Test("a strict session's group cannot lose targets, be renamed or deleted (exit 3); it can gain targets")
    func strictLock() async throws {
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work", targets: ["a.com"])
        let until = clock.now().addingTimeInterval(600)
        let lock = StubLock(until: until)
        let locked = GroupError.locked(name: "Work", until: until)
        await #expect(throws: locked) { try await UnblockTargetsUseCase(groups: groups, lock: lock, override: auth.override, clock: clock, dataLock: InMemoryDataLock()).execute(group: "Work", targets: ["a.com"]) }
        await #expect(throws: locked) { try await RenameGroupUseCase(groups: groups, lock: lock, override: auth.override, clock: clock, dataLock: InMemoryDataLock()).execute(name: "Work", to: "Play") }
        await #expect(throws: locked) { try await DeleteGroupUseCase(groups: groups, lock: lock, override: auth.override, usage: StubUsage(usages: []), dataLock: InMemoryDataLock()).execute(name: "Work") }
        #expect(locked.kind == .authorization)
        #expect(try await BlockTargetsUseCase(groups: groups, clock: clock, dataLock: InMemoryDataLock()).execute(group: "Work", targets: ["b.com"]).targets.count == 2)
        #expect(try await groups.group(named: "Work")?.name.rawValue == "Work")
    }

    @Test("with a passcode set, the strict lock needs it, and the right one lets the change through")
    func strictLockOverride() async throws {
        _ = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "Work", targets: ["a.com", "b.com"])
        let lock = StubLock(until: clock.now().addingTimeInterval(600))
        try await auth.set.execute(Passcode("1234"))
        let unblock = UnblockTargetsUseCase(groups: groups, lock: lock, override: auth.override, clock: clock, dataLock: InMemoryDataLock())
        await #expect(throws: AuthError.passcodeRequired) { try await unblock.execute(group: "Work", targets: ["a.com"]) }
        await #expect(throws: AuthError.self) { try await unblock.execute(group: "Work", targets: ["a.com"], passcode: Passcode("0000")) }
        #expect(try await unblock.execute(group: "Work", targets: ["a.com"], passcode: Passcode("1234")).targets.map(\.description) == ["b.com"])
        let rename = RenameGroupUseCase(groups: groups, lock: lock, override: auth.override, clock: clock, dataLock: InMemoryDataLock())
        #expect(try await rename.execute(name: "Work", to: "Play", passcode: Passcode("1234")).name.rawValue == "Play")
        #expect(try await auth.audit.entries().map(\.action) == ["set-passcode", "group.unblock", "group.unblock", "group.unblock", "group.rename"])
    }

    @Test("every error has a code in its context and a description")
    func errorDescriptions() {
        let errors: [GroupError] = [.notFound(name: "a"), .alreadyExists(name: "a"), .invalidName("a", reason: "r"),
                                    .invalidTarget("a", reason: "r"), .targetNotInGroup(target: "t", group: "g"),
                                    .inUse(name: "a", by: [.schedule("s")]), .unavailable("disk"), .locked(name: "a", until: Date())]
        for error in errors {
            #expect(error.code.hasPrefix("group."))
            #expect(!error.description.isEmpty)
        }
    }
}

/// A strict session's block holds its targets as it started, whatever its
/// group loses where the session is not seen; what its passcode releases
/// here, it lets go.
@Suite("A strict session's held targets")
struct HeldTargetsTests {
    let groups = InMemoryGroupRepository()
    let sessions = InMemorySessionRepository()
    let clock = ManualClock()

    func targets(_ texts: [String]) throws -> [Target] { try texts.map { try Target(parsing: $0) } }

    @Test("the block is the group's targets now, in their order, then those held that the group lost; none held for a session that is not strict")
    func blockTargets() throws {
        let group = GroupID()
        let strict = Session(groupId: group, startedAt: clock.now(), plannedEnd: clock.now().addingTimeInterval(600), strict: true)
            .holding(try targets(["a.com", "b.com", "c.com"]))
        #expect(strict.blockTargets(try targets(["c.com", "d.com"])).map(\.description) == ["c.com", "d.com", "a.com", "b.com"])
        let plain = Session(groupId: group, startedAt: clock.now(), plannedEnd: nil)
        #expect(plain.holding(try targets(["a.com"])).heldTargets == nil)
        #expect(plain.blockTargets(try targets(["d.com"])).map(\.description) == ["d.com"])
        #expect(strict.releasing(try targets(["x.com"])) == nil, "holds none of them")
        #expect(strict.releasing(try targets(["b.com"]))?.heldTargets?.map(\.description) == ["a.com", "c.com"])
    }

    @Test("an unblock the passcode allows here releases the target from the running strict session's block; another group's holds")
    func unblockReleases() async throws {
        let auth = AuthWorld()
        try await auth.set.execute(Passcode("1234"))
        let work = try await CreateGroupUseCase(groups: groups, clock: clock).execute(name: "work", targets: ["a.com", "b.com"])
        let session = Session(groupId: work.id, startedAt: clock.now(), plannedEnd: clock.now().addingTimeInterval(600), strict: true)
            .holding(work.targets)
        #expect(try await sessions.replace(nil, with: session))
        let lock = StrictSessionLock(sessions: sessions, clocks: SessionClocks(clock: clock, devices: FixedDevices(this: "this-device")))
        try await lock.released(try targets(["a.com"]), of: GroupID())
        #expect(try await sessions.current()?.heldTargets?.count == 2)
        let unblock = UnblockTargetsUseCase(groups: groups, lock: lock, override: auth.override, clock: clock, dataLock: InMemoryDataLock())
        await #expect(throws: AuthError.passcodeRequired) { try await unblock.execute(group: "work", targets: ["a.com"]) }
        #expect(try await sessions.current()?.heldTargets?.count == 2)
        _ = try await unblock.execute(group: "work", targets: ["a.com"], passcode: Passcode("1234"))
        let now = try #require(try await sessions.current())
        #expect(now.heldTargets?.map(\.description) == ["b.com"])
        #expect(now.blockTargets(try await groups.group(id: work.id)?.targets ?? []).map(\.description) == ["b.com"])
        // Another device took b.com out of the group (the merge brings that
        // in): the session still blocks it, and the passcode still releases it.
        var merged = try #require(try await groups.group(id: work.id))
        try merged.remove(try targets(["b.com"]))
        try await groups.update(merged)
        await #expect(throws: GroupError.targetNotInGroup(target: "c.com", group: "work")) {
            try await unblock.execute(group: "work", targets: ["c.com"], passcode: Passcode("1234"))
        }
        _ = try await unblock.execute(group: "work", targets: ["b.com"], passcode: Passcode("1234"))
        #expect(try await sessions.current()?.heldTargets == [])
    }
}
