import Adapters
import Domain
import Foundation
import Testing

/// Daily allowances on the manual clock (cli.md, "Allowances"; semantics.md,
/// "Cycles and allowances"): spending, the local day of a fixed zone that is
/// not the machine's, a moved clock, a reboot, two devices sharing the
/// spending, cancel giving back what was not used, and every refusal.
@Suite("Allowances, on a test clock")
struct AllowanceTests {
    /// UTC+05:30: its midnight is 18:30 UTC, so a local day ends while the UTC day goes on.
    static let zone = TimeZoneRules.fixed("Test/PlusFiveThirty", offset: 19_800)

    struct Allowed {
        let world: SessionWorld
        let ledger = InMemoryAllowanceLedger()

        init(at instant: String = "2026-11-23T08:00:00Z", allowance: TimeInterval? = 15 * 60) async throws {
            world = try await SessionWorld()
            world.clock.setWallClock(to: Timestamp.parse(instant)!)
            _ = try await set(allowance)
        }

        func book(device: String = "laptop") -> AllowanceBook {
            AllowanceBook(ledger: ledger, devices: FixedDevices(this: device), clock: world.clock, zone: { AllowanceTests.zone })
        }

        func allow(device: String = "laptop") -> AllowUseCase {
            AllowUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active, book: book(device: device))
        }

        func set(_ allowance: TimeInterval?) async throws -> Group {
            try await SetAllowanceUseCase(groups: world.groups, lock: StrictSessionLock(sessions: world.sessions, clocks: SessionClocks(clock: world.clock, devices: FixedDevices(this: "this-device"))),
                                          clock: world.clock, dataLock: InMemoryDataLock()).execute(group: "work", allowance: allowance)
        }

        func left(device: String = "laptop") async throws -> TimeInterval {
            try await book(device: device).standing(of: world.work.id, allowance: try #require(try await world.groups.group(named: "work")?.allowance)).left
        }

        /// The block as reconcile (any command, or the daemon's pass) leaves it.
        func blockUp() async throws -> Bool {
            _ = try await world.active.reconcile()
            return try await world.shieldState != nil
        }
    }

    @Test("allow lifts the block for its length and spends it; reconcile raises it at the end; the rest is there to take, then it is spent")
    func spending() async throws {
        let allowed = try await Allowed()
        try await allowed.world.startWork(.duration(3_600))
        let receipt = try await allowed.allow().allow("work", for: 5 * 60)
        #expect(receipt.allowance.length == 300 && receipt.leftToday == 600)
        #expect(try await !allowed.blockUp())
        allowed.world.clock.advance(by: 299)
        #expect(try await !allowed.blockUp())
        allowed.world.clock.advance(by: 1)
        #expect(try await allowed.blockUp(), "the block is back at the allowance's end")
        #expect(try await allowed.world.sessions.current()?.allowance == nil)
        let rest = try await allowed.allow().allow("work", for: nil)
        #expect(rest.allowance.length == 600, "with no length, what is left today")
        allowed.world.clock.advance(by: 600)
        #expect(try await allowed.blockUp())
        await #expect(throws: AllowanceError.spent(group: "work")) { try await allowed.allow().allow("work", for: 60) }
        #expect(allowed.world.tracker.events.map(\.name).filter { $0.hasPrefix("allowance") }
            == ["allowance-started", "allowance-ended", "allowance-started", "allowance-ended"])
    }

    @Test("the daemon's pass wakes at the allowance's end and raises the block")
    func daemonWakesAtTheEnd() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:00:00Z")
        let world = daemon.world
        _ = try await SetAllowanceUseCase(groups: world.groups, lock: StrictSessionLock(sessions: world.sessions, clocks: SessionClocks(clock: world.clock, devices: FixedDevices(this: "this-device"))),
                                          clock: world.clock, dataLock: InMemoryDataLock()).execute(group: "work", allowance: 900)
        try await world.startWork(.duration(3_600))
        let allow = AllowUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active,
                                 book: AllowanceBook(ledger: InMemoryAllowanceLedger(), devices: FixedDevices(this: "a"), clock: world.clock, zone: { .utc }))
        let receipt = try await allow.allow("work", for: 120)
        let step = try await daemon.step.execute()
        #expect(step.nextDeadline == receipt.allowance.plannedEnd, "the daemon sleeps until the allowance's end")
        world.clock.advance(by: 120)
        _ = try await daemon.step.execute()
        #expect(try await world.shieldState != nil)
    }

    @Test("what is spent counts per local day of the device's zone, not UTC's: its midnight refills it")
    func localDay() async throws {
        // 18:20 UTC is 23:50 in the zone; 18:35 UTC is 00:05 the next local day, the same UTC day.
        let allowed = try await Allowed(at: "2026-11-23T18:20:00Z")
        try await allowed.world.startWork(.duration(3_600))
        _ = try await allowed.allow().allow("work", for: 600)
        #expect(try await allowed.left() == 300)
        allowed.world.clock.advance(by: 9 * 60)
        #expect(try await allowed.left() == 300, "23:59 local: the same day")
        allowed.world.clock.advance(by: 6 * 60)
        #expect(try await allowed.left() == 900, "past the zone's midnight, a new day: the allowance is whole again")
    }

    @Test("a moved clock neither ends a running allowance early nor stretches it, nor refills a spent one")
    func movedClock() async throws {
        let allowed = try await Allowed()
        let clock = allowed.world.clock
        // Strict, so that the day-long jump below does not end the session too.
        try await allowed.world.startWork(.duration(6 * 3_600), strict: true)
        let receipt = try await allowed.allow().allow("work", for: 600)
        clock.setWallClock(to: clock.now() + 3 * 3_600)
        #expect(try await !allowed.blockUp(), "the wall clock moved forward does not end it")
        clock.setWallClock(to: receipt.allowance.startedAt)
        clock.advance(by: 600)
        #expect(try await allowed.blockUp(), "moved back, it ends when its time has really passed")
        _ = try await allowed.allow().allow("work", for: nil)
        clock.advance(by: 300)
        #expect(try await allowed.left() == 0)
        clock.setWallClock(to: clock.now() + 86_400)
        #expect(try await allowed.left() == 0, "tomorrow by a moved clock is still today by the boot-time clock")
        await #expect(throws: AllowanceError.spent(group: "work")) { try await allowed.allow().allow("work", for: 60) }
    }

    @Test("after a reboot the wall clock decides: the allowance ends at its planned end, and a new day refills it")
    func reboot() async throws {
        let allowed = try await Allowed()
        let clock = allowed.world.clock
        try await allowed.world.startWork(.duration(6 * 3_600))
        let receipt = try await allowed.allow().allow("work", for: 900)
        clock.reboot(after: 60)
        #expect(try await !allowed.blockUp())
        clock.setWallClock(to: receipt.allowance.plannedEnd)
        #expect(try await allowed.blockUp())
        #expect(try await allowed.left() == 0)
        clock.reboot(after: 86_400)
        #expect(try await allowed.left() == 900)
    }

    @Test("two devices sharing the data folder: what one spends the other sees, summed")
    func twoDevices() async throws {
        let allowed = try await Allowed()
        try await allowed.world.startWork(.duration(3_600))
        _ = try await allowed.allow(device: "laptop").allow("work", for: 600)
        #expect(try await allowed.left(device: "desktop") == 300)
        _ = try await allowed.allow(device: "laptop").cancel()
        allowed.world.clock.advance(by: 1)
        _ = try await allowed.allow(device: "desktop").allow("work", for: nil)
        #expect(try await allowed.left(device: "laptop") == 0)
        #expect(Set(try await allowed.ledger.spending(of: allowed.world.work.id).map(\.device)) == ["laptop", "desktop"])
    }

    @Test("cancel raises the block at once and gives back what was not used")
    func cancel() async throws {
        let allowed = try await Allowed()
        try await allowed.world.startWork(.duration(3_600))
        _ = try await allowed.allow().allow("work", for: 600)
        allowed.world.clock.advance(by: 180)
        let unused = try await allowed.allow().cancel()
        #expect(unused == 420)
        #expect(try await allowed.world.shieldState != nil)
        #expect(try await allowed.left() == 720)
        await #expect(throws: AllowanceError.notRunning) { try await allowed.allow().cancel() }
    }

    @Test("refused: no allowance, no session of the group, one running already, a bad length")
    func refusals() async throws {
        let allowed = try await Allowed(allowance: nil)
        await #expect(throws: AllowanceError.none(group: "work")) { try await allowed.allow().allow("work", for: 60) }
        _ = try await allowed.set(900)
        await #expect(throws: SessionError.notActive) { try await allowed.allow().allow("work", for: 60) }
        try await allowed.world.groups.insert(Group(name: try GroupName("news"), createdAt: allowed.world.clock.now()))
        try await allowed.world.startWork(.duration(3_600))
        await #expect(throws: SessionError.groupNotFound(name: "nope")) { try await allowed.allow().allow("nope", for: 60) }
        _ = try await allowed.allow().allow("work", for: 60)
        await #expect(throws: AllowanceError.self) { try await allowed.allow().allow("work", for: 60) }
        await #expect(throws: AllowanceError.invalidLength("give a duration from 1s to 24h")) { try await allowed.allow().allow("work", for: 0) }
        #expect(try await allowed.left() == 840, "refusals spend nothing")
    }

    @Test("a strict session's block is lifted by an allowance; its allowance cannot be raised meanwhile, only lowered")
    func strict() async throws {
        let allowed = try await Allowed()
        try await allowed.world.startWork(.duration(3_600), strict: true)
        _ = try await allowed.allow().allow("work", for: 60)
        #expect(try await !allowed.blockUp())
        await #expect(throws: GroupError.self) { _ = try await allowed.set(1_800) }
        #expect(try await allowed.set(600).allowance == 600, "lowering is never refused")
        #expect(try await allowed.set(nil).allowance == nil)
        await #expect(throws: GroupError.self) { _ = try await allowed.set(60) }
    }

    @Test("resume in an allowance keeps the block down; the allowance's end raises it")
    func resumeDuringAllowance() async throws {
        let allowed = try await Allowed()
        try await allowed.world.startWork(.duration(3_600))
        _ = try await allowed.allow().allow("work", for: 120)
        _ = try await allowed.world.pause.execute()
        allowed.world.clock.advance(by: 30)
        _ = try await allowed.world.resume.execute()
        #expect(try await allowed.world.shieldState == nil)
        allowed.world.clock.advance(by: 90)
        #expect(try await allowed.blockUp())
    }

    @Test("a scheduled interval carries its own allowance for the group: its session may be lifted though the group has none")
    func scheduledAllowance() async throws {
        let daemon = try await DaemonWorld(at: "2026-11-23T08:59:00Z")
        let world = daemon.world
        var schedule = Schedule(name: "days", groupId: world.work.id, from: TimeOfDay(parsing: "09:00")!, to: TimeOfDay(parsing: "17:00")!,
                                weekdays: Set(Weekday.allCases))
        schedule.allowance = 15 * 60
        try await daemon.schedules.insert(schedule)
        world.clock.advance(by: 60)
        _ = try await daemon.step.execute()
        let session = try #require(try await world.sessions.current())
        #expect(session.dailyAllowance == 900 && session.origin == .schedule("days"))
        let allow = AllowUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active,
                                 book: AllowanceBook(ledger: InMemoryAllowanceLedger(), devices: FixedDevices(this: "a"), clock: world.clock, zone: { .utc }))
        let receipt = try await allow.allow("work", for: nil)
        #expect(receipt.allowance.length == 900 && receipt.leftToday == 0)
        #expect(try await world.shieldState == nil)
        world.clock.advance(by: 900)
        _ = try await daemon.step.execute()
        #expect(try await world.shieldState != nil, "the daemon raised it at the allowance's end")
    }

    @Test("a shield that will not lower the block (the system service holding a strict block) withdraws the allowance and spends nothing")
    func shieldRefuses() async throws {
        let stuck = StuckShield()
        let world = try await SessionWorld(shield: stuck)
        _ = try await SetAllowanceUseCase(groups: world.groups, lock: StrictSessionLock(sessions: world.sessions, clocks: SessionClocks(clock: world.clock, devices: FixedDevices(this: "this-device"))),
                                          clock: world.clock, dataLock: InMemoryDataLock()).execute(group: "work", allowance: 900)
        try await world.startWork(.duration(3_600), strict: true)
        stuck.stuck = true
        let ledger = InMemoryAllowanceLedger()
        let allow = AllowUseCase(sessions: world.sessions, groups: GroupRepositoryLookup(groups: world.groups), active: world.active,
                                 book: AllowanceBook(ledger: ledger, devices: FixedDevices(this: "a"), clock: world.clock, zone: { .utc }))
        await #expect(throws: (any Error).self) { try await allow.allow("work", for: 300) }
        #expect(try await world.sessions.current()?.allowance == nil, "no allowance runs")
        #expect(try await ledger.allSpending().allSatisfy { $0.seconds == 0 }, "nothing is spent")
        #expect(try await stuck.state() != nil, "the block is still up")
    }
}
