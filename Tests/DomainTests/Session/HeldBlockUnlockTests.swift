import Adapters
import Domain
import Foundation
import Testing

/// The unlock rule the system service keeps with a strict block, on the
/// manual clock: it decides an early lower, whatever the user's files say.
@Suite("The unlock rule of a held block")
struct HeldBlockUnlockTests {
    let clock = ManualClock()
    let store = InMemoryHeldBlockStore()
    var blocks: HeldBlocks {
        HeldBlocks(store: store, layers: [HeldBlocksTests.RecordingLayer()], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
    }

    func raise(_ unlock: UnlockMethod?) async throws -> SessionID {
        let session = SessionID()
        try await blocks.raise(.init(session: session, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: clock.now() + 1_800, length: 1_800, unlock: unlock), for: 1_000)
        return session
    }

    /// Whether the block is enforced: one lowered early stays on record
    /// (a resume raises it under its rule), enforced by nothing.
    var held: Bool { get async throws { try await store.blocks().contains { $0.loweredAt == nil } } }

    @Test("delay: an early lower waits for the service's own countdown, which a moved clock does not shorten and asking again does not restart")
    func delay() async throws {
        let session = try await raise(.delay(60))
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000, overridden: true) }
        let end = try #require(try await blocks.requestUnlock(session, for: 1_000))
        #expect(end == clock.now() + 60)
        clock.advance(by: 30)
        #expect(try await blocks.requestUnlock(session, for: 1_000) == end, "not restarted")
        clock.setWallClock(to: clock.now() + 3_600)   // no boot time passes
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
        #expect(try await held)
        clock.advance(by: 30)
        try await blocks.lower(session, for: 1_000)
        #expect(try await !held)
    }

    @Test("delay: a withdrawn countdown lowers nothing")
    func withdraw() async throws {
        let session = try await raise(.delay(60))
        _ = try await blocks.requestUnlock(session, for: 1_000)
        try await blocks.withdrawUnlock(session, for: 1_000)
        clock.advance(by: 61)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
        #expect(try await held)
    }

    @Test("never: not even the passcode lowers it early; passcode (and blocks from before the rule): the passcode does; typing: text typed back does")
    func rules() async throws {
        let never = try await raise(.never)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(never, for: 1_000, overridden: true, typed: 512) }
        #expect(try await blocks.requestUnlock(never, for: 1_000) == nil)
        clock.advance(by: 1_801)
        try await blocks.lower(never, for: 1_000)

        let old = try await raise(nil)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(old, for: 1_000, typed: 512) }
        try await blocks.lower(old, for: 1_000, overridden: true)

        let typing = try await raise(.typing(32))
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(typing, for: 1_000, overridden: true) }
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(typing, for: 1_000, typed: 32) }
        #expect(try await held, "a count the client claims is no proof")
        #expect(try await blocks.typingCount(typing, for: 1_000) == 32)
        try await blocks.proveTyping(typing, for: 1_000)
        clock.advance(by: HeldBlocks.typingProofLife + 1)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(typing, for: 1_000, typed: 32) }
        #expect(try await held, "the proof is good for a minute")
        try await blocks.proveTyping(typing, for: 1_000)
        try await blocks.lower(typing, for: 1_000)
        #expect(try await !held, "the text checked by the service admits it")
    }

    @Test("a re-raise of the same session cannot change the rule it was raised with")
    func rule() async throws {
        let session = try await raise(.never)
        try await blocks.raise(.init(session: session, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: clock.now() + 1_800, length: 1_800, unlock: .passcode), for: 1_000)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000, overridden: true) }
        // Stored and read back as the service keeps it.
        let stored = try await store.blocks()
        let again = try JSONDecoder().decode([HeldBlock].self, from: JSONEncoder().encode(stored))
        #expect(again.first?.unlock == .never)
    }

    @Test("the pause gap: a strict block lowered early (a pause) stays on record; the resume's raise restores it under the rule it was raised with, whatever looser rule the new raise says")
    func pauseKeepsTheRule() async throws {
        let session = try await raise(.typing(32))
        try await blocks.proveTyping(session, for: 1_000)
        try await blocks.lower(session, for: 1_000, typed: 32)
        #expect(try await !held)
        #expect(try await blocks.status(of: 1_000).map { $0.loweredAt != nil } == [true], "kept for a resume")
        try await blocks.raise(.init(session: session, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: clock.now() + 1_800, length: 1_800, unlock: .typing(16)), for: 1_000)
        #expect(try await held)
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000, overridden: true) }
        #expect(try await blocks.status(of: 1_000).first?.unlock == .typing(32))
        // A new session replaces the record of a stopped one.
        try await blocks.proveTyping(session, for: 1_000)
        try await blocks.lower(session, for: 1_000, typed: 32)
        let next = SessionID()
        try await blocks.raise(.init(session: next, targets: [try Target(parsing: "example.com")], strict: true,
                                     plannedEnd: clock.now() + 600, length: 600, unlock: .passcode), for: 1_000)
        #expect(try await blocks.status(of: 1_000).map(\.session) == [next])
    }
}
