import Adapters
import Domain
import Foundation
import Testing

/// A strict cycle's phases as the system service keeps them with the block
/// (docs/cycles.md, "With the system service"), on the manual clock: the
/// block is down in each break and up in each work phase, by both clocks.
@Suite("A strict cycle's phases held by the system service")
struct HeldBlockCycleTests {
    let clock = ManualClock()
    let store = InMemoryHeldBlockStore()
    let layer = HeldBlocksTests.RecordingLayer()
    var blocks: HeldBlocks { HeldBlocks(store: store, layers: [layer], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler())) }

    /// A strict 60s/30s x 3 cycle (3 x 60 + 2 x 30 = 240 s) raised now.
    /// Raised again (`next`, a refresh), as the user's commands do: with
    /// the session's own terms, which the first raise set.
    @discardableResult
    func raise(_ session: SessionID = SessionID(), cycle: Cycle = .fixed(work: 60, breakLength: 30, rounds: 3)) async throws -> SessionID {
        let length = cycle.length ?? 3_600
        let start = try await blocks.status(of: 1_000).first { $0.session == session }?.cycle?.startedAt ?? clock.now()
        try await blocks.raise(.init(session: session, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: start + length, length: length, cycle: cycle, startedAt: start), for: 1_000)
        return session
    }

    @Test("down at each break and up at its end, the pass waking at every edge, with no request from the user")
    func everyEdge() async throws {
        _ = try await raise()
        #expect(layer.domains == ["example.com"])
        #expect(try await blocks.pass() == clock.now() + 60, "wakes at the first break")
        for (wait, up, next) in [(60.0, false, 30.0), (30, true, 60), (60, false, 30), (30, true, 60)] {
            clock.advance(by: wait)
            let wake = try await blocks.pass()
            #expect(layer.domains.isEmpty == !up)
            #expect(wake == clock.now() + next)
        }
        clock.advance(by: 60)
        try await blocks.pass()
        #expect(try await blocks.status(of: 1_000).isEmpty, "the session's end")
    }

    @Test("a wall clock moved forward does not end a work phase early; moved back, it does not stretch a break")
    func movedClock() async throws {
        _ = try await raise()
        clock.advance(by: 30)
        clock.setWallClock(to: clock.now() + 20)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "30 s of boot time into a 60 s work phase, 50 s by the wall clock")
        clock.advance(by: 30)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "the break, by both clocks")
        clock.setWallClock(to: clock.now() - 600)
        clock.advance(by: 30)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "the break's end by boot time, the wall clock set back")
    }

    @Test("after a reboot the wall clock decides the phases")
    func reboot() async throws {
        _ = try await raise()
        clock.advance(by: 10)
        clock.reboot(after: 60)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "70 s in by the wall clock: the first break")
    }

    @Test("a strict work phase cannot be lowered; a lower in a break keeps the block for the next work phase; a raise in a break ends it (next)")
    func requests() async throws {
        let session = try await raise()
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
        clock.advance(by: 60)
        try await blocks.lower(session, for: 1_000)
        #expect(layer.domains.isEmpty)
        #expect(try await blocks.status(of: 1_000).count == 1, "kept: it comes back at the break's end")
        clock.advance(by: 10)
        try await raise(session)
        #expect(layer.domains == ["example.com"], "next: back to work now")
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
        clock.advance(by: 79)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"])
        clock.advance(by: 1)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "the next break where the plan has it")
    }

    @Test("a raise at a break's very start (the user's daemon a moment late) does not end the break")
    func lateRaise() async throws {
        let session = try await raise()
        clock.advance(by: 60.2)
        try await raise(session)
        #expect(layer.domains.isEmpty)
    }

    @Test("a flow's block is not lowered by the service: its work has no planned end")
    func flow() async throws {
        let session = SessionID()
        try await blocks.raise(.init(session: session, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: clock.now() + 3_600, length: 3_600, cycle: .flow(), startedAt: clock.now()), for: 1_000)
        clock.advance(by: 1_000)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"])
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
    }
}
