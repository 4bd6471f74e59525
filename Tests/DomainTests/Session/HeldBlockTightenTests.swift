import Adapters
import Domain
import Foundation
import Testing

/// A block only tightens (semantics.md, "Service, second pass"), on the
/// manual clock: what a user raises early, twice or out of order under a
/// session's id never loosens the session's own strict raise.
@Suite("A block the system service holds only tightens")
struct HeldBlockTightenTests {
    let clock = ManualClock()
    let store = InMemoryHeldBlockStore()
    let layer = HeldBlocksTests.RecordingLayer()
    var blocks: HeldBlocks { HeldBlocks(store: store, layers: [layer], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler())) }
    let user: UInt32 = 1_000

    func request(_ session: SessionID, _ targets: [String] = ["example.com"], strict: Bool, length: TimeInterval? = 3_600,
                 unlock: UnlockMethod? = nil, cycle: Cycle? = nil, startedAt: Date? = nil) -> HeldBlocks.Request {
        .init(session: session, targets: targets.map { try! Target(parsing: $0) }, strict: strict,
              plannedEnd: length.map { (startedAt ?? clock.now()) + $0 }, length: length, unlock: unlock, cycle: cycle,
              startedAt: startedAt ?? (strict ? clock.now() : nil))
    }

    @Test("a session's id raised loosely before its strict raise: the block is strict, cannot be lowered, and owes its length from the strict raise")
    func looseBeforeStrict() async throws {
        let session = SessionID()
        // The user raises the id an hour early, loosely and open-ended.
        try await blocks.raise(request(session, ["decoy.example"], strict: false, length: nil), for: user)
        clock.advance(by: 3_600)
        try await blocks.raise(request(session, strict: true, length: 3_600, unlock: .never), for: user)
        let held = try #require(try await blocks.status(of: user).first)
        #expect(held.strict && held.unlock == .never)
        #expect(held.plannedEnd == clock.now() + 3_600, "the strict raise's end, not the early one's")
        #expect(layer.domains == ["decoy.example", "example.com"], "a block becoming strict keeps what it held too")
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: user) }
        // The wall clock moved to the planned end: the hour the block stood
        // loosely is not strict time, so the boot clock still holds it.
        clock.setWallClock(to: clock.now() + 3_600)
        try await blocks.pass()
        #expect(layer.domains.contains("example.com"), "an hour of boot time is still owed")
        clock.advance(by: 3_600)
        try await blocks.pass()
        #expect(try await blocks.status(of: user).isEmpty)
    }

    @Test("a loose raise's countdown and typed proof do not carry into the strict block")
    func looseProofsDropped() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, strict: false), for: user)
        try await blocks.raise(request(session, strict: true, unlock: .delay(600)), for: user)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: user) }
        let held = try #require(try await blocks.status(of: user).first)
        #expect(held.countdown == nil && held.typedAt == nil && held.strict)
    }

    @Test("two strict raises: the later end, the longer length win, and rules of two kinds leave no early end, whichever came first")
    func strictTwice() async throws {
        for (first, second) in [(UnlockMethod.typing(16), UnlockMethod.passcode), (.passcode, .typing(16))] {
            let session = SessionID()
            try await blocks.raise(request(session, strict: true, length: 60, unlock: first), for: user)
            try await blocks.raise(request(session, strict: true, length: 3_600, unlock: second), for: user)
            let held = try #require(try await blocks.status(of: user).first { $0.session == session })
            #expect(held.unlock == .never, "typing and the passcode disagree, raised \(first) then \(second)")
            #expect(held.plannedEnd == clock.now() + 3_600 && held.length == 3_600)
            try await blocks.raise(request(session, strict: true, length: 60, unlock: .typing(16)), for: user)
            let again = try #require(try await blocks.status(of: user).first { $0.session == session })
            #expect(again.plannedEnd == clock.now() + 3_600 && again.length == 3_600 && again.unlock == .never,
                    "a shorter raise after does not shorten it")
            await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: user, overridden: true) }
            clock.advance(by: 3_600)
            try await blocks.pass()
        }
    }

    @Test("a strict raise whose cycle disagrees with the one held keeps no breaks; the same cycle again keeps them")
    func cycles() async throws {
        let loose = Cycle.fixed(work: 1, breakLength: 3_000, rounds: 2)
        let early = SessionID()
        try await blocks.raise(request(early, strict: true, length: 3_002, cycle: loose), for: user)
        try await blocks.raise(request(early, strict: true, length: 3_002), for: user)
        clock.advance(by: 10)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "no break: the plans disagreed")
        try await blocks.lower(early, for: user, overridden: true)

        let session = SessionID(), plan = Cycle.fixed(work: 60, breakLength: 30, rounds: 2), start = clock.now()
        try await blocks.raise(request(session, strict: true, length: 150, cycle: plan, startedAt: start), for: user)
        try await blocks.raise(request(session, strict: true, length: 150, cycle: plan, startedAt: start), for: user)
        // A raise with no strict terms (a refresh of the targets) keeps it too.
        try await blocks.raise(request(session, ["more.example"], strict: false, length: nil), for: user)
        clock.advance(by: 70)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "the session's own break, the same plan raised three times")
        let held = try #require(try await blocks.status(of: user).first)
        #expect(held.strict && held.targets.count == 2 && held.plannedEnd == start + 150)
    }

    @Test("repeated strict raises with the same terms keep the time served (a refresh does not restart the count)")
    func refreshKeepsServed() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, strict: true, length: 600), for: user)
        clock.advance(by: 300)
        try await blocks.raise(request(session, strict: true, length: 600, startedAt: clock.now() - 300), for: user)
        clock.advance(by: 300)
        try await blocks.pass()
        #expect(try await blocks.status(of: user).isEmpty, "its 600 s were served")
    }

    @Test("the stricter of two unlock rules: never over any; within one kind the longer; two kinds, never; the same, itself")
    func unlockRules() {
        let rules: [UnlockMethod] = [.never, .passcode, .delay(600), .delay(60), .typing(64), .typing(16)]
        for held in rules {
            for asked in rules {
                let tightest = UnlockMethod.tightest(held, asked)
                #expect(tightest == UnlockMethod.tightest(asked, held), "either order")
                switch (held, asked) {
                case _ where held == asked: #expect(tightest == held)
                case (.delay(let a), .delay(let b)): #expect(tightest == .delay(max(a, b)))
                case (.typing(let a), .typing(let b)): #expect(tightest == .typing(max(a, b)))
                default: #expect(tightest == .never, "\(held), \(asked)")
                }
            }
        }
    }
}
