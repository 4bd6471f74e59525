import Adapters
import Domain
import Foundation
import Testing

/// The allowances the system service keeps (semantics.md, "Cycles and
/// allowances": "With the system service installed, the service keeps what
/// was spent and lifts and raises the block itself"), on the manual clock.
@Suite("Allowances the system service keeps")
struct HeldBlockAllowanceTests {
    let clock = ManualClock()
    let store = InMemoryHeldBlockStore()
    let layer = HeldBlocksTests.RecordingLayer()
    let ledger = InMemoryAllowanceLedger()
    let group = GroupID()

    var blocks: HeldBlocks {
        let ledger = ledger
        return HeldBlocks(store: store, layers: [layer], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()),
                          allowances: { _ in ledger }, zone: { .utc })
    }

    func request(_ session: SessionID, strict: Bool = true, daily: TimeInterval? = 600, length: TimeInterval = 3_600) -> HeldBlocks.Request {
        .init(session: session, targets: [try! Target(parsing: "example.com")], strict: strict, plannedEnd: clock.now() + length,
              length: length, group: group, dailyAllowance: daily)
    }

    @Test("a strict block is lowered for an allowance it counts and raised again at its end, on the pass's wake; spent twice, then refused")
    func strictAllowance() async throws {
        let session = SessionID()
        try await blocks.raise(request(session), for: 1_000)
        let grant = try await blocks.allow(session, for: 1_000, length: 120, daily: nil)
        #expect(grant.until == clock.now() + 120 && grant.left == 480)
        #expect(layer.domains.isEmpty, "down for the allowance")
        #expect(try await blocks.pass() == clock.now() + 60, "the strict block's checkpoint first, then the allowance's end")
        clock.advance(by: 119)
        #expect(try await blocks.pass() == clock.now() + 1, "wakes at the allowance's end")
        #expect(layer.domains.isEmpty)
        clock.advance(by: 1)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "raised at the end by the service itself")
        let rest = try await blocks.allow(session, for: 1_000, length: nil, daily: nil)
        #expect(rest.length == 480 && rest.left == 0, "what is left today")
        clock.advance(by: 480)
        try await blocks.pass()
        await #expect(throws: HeldBlockError.allowanceSpent) { try await blocks.allow(session, for: 1_000, length: 60, daily: nil) }
        #expect(layer.domains == ["example.com"])
    }

    @Test("a strict block keeps the allowance it was raised with: a raise or an allow asking for more changes nothing")
    func strictKeepsItsAllowance() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, daily: 60), for: 1_000)
        try await blocks.raise(request(session, daily: 86_400), for: 1_000)
        let grant = try await blocks.allow(session, for: 1_000, length: 3_600, daily: 86_400)
        #expect(grant.length == 60, "the allowance kept with the block")
        // A block that is not strict takes its user's allowance as set now
        // (this test's ledger is one for every user: 60 s of it are spent).
        let loose = SessionID()
        try await blocks.raise(request(loose, strict: false, daily: 60), for: 2_000)
        #expect(try await blocks.allow(loose, for: 2_000, length: 3_600, daily: 180).length == 120)
    }

    @Test("the allowance's end is on boot time: a wall clock moved forward does not end it early")
    func movedClock() async throws {
        let session = SessionID()
        try await blocks.raise(request(session), for: 1_000)
        _ = try await blocks.allow(session, for: 1_000, length: 120, daily: nil)
        clock.setWallClock(to: clock.now() + 3_000)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "still down: only 0 s of boot time went by")
        clock.advance(by: 120)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"])
    }

    @Test("after a reboot the wall clock decides the allowance's end, as for a strict block")
    func reboot() async throws {
        let session = SessionID()
        try await blocks.raise(request(session), for: 1_000)
        _ = try await blocks.allow(session, for: 1_000, length: 120, daily: nil)
        clock.reboot(after: 300)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "back up at the first pass of the new boot")
    }

    @Test("a raise ends the allowance at once (allow --cancel) and gives back what was not used; lowering a strict block stays refused")
    func cancelGivesBack() async throws {
        let session = SessionID()
        try await blocks.raise(request(session), for: 1_000)
        _ = try await blocks.allow(session, for: 1_000, length: 300, daily: nil)
        await #expect(throws: HeldBlockError.allowanceRunning(until: clock.now() + 300)) {
            try await blocks.allow(session, for: 1_000, length: 60, daily: nil)
        }
        clock.advance(by: 100)
        try await blocks.raise(request(session), for: 1_000)
        #expect(layer.domains == ["example.com"])
        #expect(try await ledger.spending(of: group).spent(on: AllowanceDay.day(of: clock.now(), in: .utc)) == 100)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
    }

    @Test("a block raised with no allowance, or by a service that keeps none, is not lowered by allow")
    func noAllowance() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, daily: nil), for: 1_000)
        await #expect(throws: HeldBlockError.noAllowance) { try await blocks.allow(session, for: 1_000, length: 60, daily: 600) }
        let keepsNone = HeldBlocks(store: store, layers: [layer], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
        await #expect(throws: HeldBlockError.noAllowance) { try await keepsNone.allow(session, for: 1_000, length: 60, daily: nil) }
        #expect(layer.domains == ["example.com"])
    }
}
