import Adapters
import Domain
import Foundation
import Synchronization
import Testing

/// The system service's authority over blocks, on the manual clock:
/// semantics.md, "The system service".
@Suite("The blocks the system service holds")
struct HeldBlocksTests {
    /// A layer that remembers what it was last told to enforce.
    final class RecordingLayer: BlockLayer, @unchecked Sendable {
        let name: String
        private let last = Mutex<[HeldBlock]>([])
        /// When it asks to be given the blocks again.
        let again: Date?
        let fails: Bool

        init(name: String = "recording", again: Date? = nil, fails: Bool = false) {
            self.name = name
            self.again = again
            self.fails = fails
        }

        func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
            last.withLock { $0 = blocks }
            if fails { throw HeldBlockError.badRequest("this layer fails") }
            return again
        }

        func report() async -> LayerReport { LayerReport(name: name, active: true, detail: "records") }
        var domains: Set<String> {
            Set(last.withLock { $0 }.flatMap(\.targets).compactMap { if case .domain(let name) = $0 { name.ascii } else { nil } })
        }
    }

    let clock = ManualClock()
    let store = InMemoryHeldBlockStore()
    let layer = RecordingLayer()
    var blocks: HeldBlocks { HeldBlocks(store: store, layers: [layer], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler())) }

    func request(_ session: SessionID = SessionID(), _ targets: [String] = ["example.com"], strict: Bool = false,
                 length: TimeInterval? = 1_800) -> HeldBlocks.Request {
        .init(session: session, targets: targets.map { try! Target(parsing: $0) }, strict: strict,
              plannedEnd: length.map { clock.now() + $0 }, length: length)
    }

    @Test("a layer that fails keeps neither the block from being held nor the others from enforcing; it is reported and retried within 5 s")
    func failingLayer() async throws {
        let failing = RecordingLayer(name: "failing", fails: true), after = RecordingLayer(name: "after")
        let blocks = HeldBlocks(store: store, layers: [failing, after], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let held = try await blocks.raise(request(), for: 1_000)
        #expect(try await store.blocks() == [held], "held although a layer failed")
        #expect(after.domains == ["example.com"], "the layer after the failing one enforced the block")
        let reports = await blocks.reports()
        #expect(reports.map(\.name) == ["failing", "after"])
        #expect(reports.first?.failure?.contains("this layer fails") == true && reports.last?.failure == nil)
        #expect(try await blocks.pass() == clock.now() + LayerHealth.retryDelay, "given the blocks again soon, not at the block's end")
    }

    @Test("a layer that fails then works is reported as working again, and the pass goes back to the block's end")
    func layerRecovers() async throws {
        final class Flaky: BlockLayer, @unchecked Sendable {
            let name = "flaky"
            let failing = Mutex(true)
            func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
                if failing.withLock({ $0 }) { throw HeldBlockError.badRequest("read-only") }
                return nil
            }
            func report() async -> LayerReport { LayerReport(name: name, active: true, detail: "") }
        }
        let flaky = Flaky()
        let blocks = HeldBlocks(store: store, layers: [flaky], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
        try await blocks.raise(request(length: 1_800), for: 1_000)
        #expect(await blocks.reports().first?.failure != nil)
        flaky.failing.withLock { $0 = false }
        #expect(try await blocks.pass() == clock.now() + 1_800)
        #expect(await blocks.reports().first?.failure == nil)
    }

    @Test("root's release is final for its session: enforced by no layer, not raised again, not lifted by a pause; the user's next session blocks")
    func releaseIsFinal() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, strict: true), for: 1_000)
        #expect(try await blocks.release(uid: 1_000, by: 0).count == 1)
        #expect(layer.domains.isEmpty)
        await #expect(throws: HeldBlockError.released) { try await blocks.raise(request(session, strict: true), for: 1_000) }
        try await blocks.lower(session, for: 1_000)
        await #expect(throws: HeldBlockError.released) { try await blocks.raise(request(session), for: 1_000) }
        #expect(try await blocks.status(of: 1_000).map(\.isReleased) == [true])
        #expect(try await blocks.release(uid: 1_000, by: 0).isEmpty, "released once")
        try await blocks.raise(request(), for: 1_000)
        #expect(layer.domains == ["example.com"], "a new session is blocked, and replaces the record")
        #expect(try await blocks.status(of: 1_000).map(\.isReleased) == [false])
        // The record lasts to the planned end.
        let other = SessionID()
        try await blocks.raise(request(other, length: 600), for: 2_000)
        _ = try await blocks.release(uid: 2_000, by: 0)
        clock.advance(by: 601)
        try await blocks.pass()
        #expect(try await blocks.status(of: 2_000).isEmpty)
    }

    @Test("the pass wakes the service when a layer asks to be given the blocks again (the firewall re-resolving)")
    func layerDeadline() async throws {
        let soon = clock.now() + 90
        let blocks = HeldBlocks(store: store, layers: [RecordingLayer(again: soon)], clock: clock,
                                logger: Logger(label: "t", handler: InMemoryLogHandler()))
        try await blocks.raise(request(length: 1_800), for: 1_000)
        #expect(try await blocks.pass() == soon, "earlier than the block's end")
        let late = HeldBlocks(store: store, layers: [RecordingLayer(again: clock.now() + 7_200)], clock: clock,
                              logger: Logger(label: "t", handler: InMemoryLogHandler()))
        #expect(try await late.pass() == clock.now() + 1_800, "the block's end comes first")
    }

    @Test("a strict block refuses its user until its end, then the pass lifts it; root may release it before")
    func strictUntilEnd() async throws {
        let session = SessionID()
        try await blocks.raise(request(session, strict: true), for: 1_000)
        #expect(layer.domains == ["example.com"])
        await #expect(throws: HeldBlockError.self) { try await blocks.lower(session, for: 1_000) }
        await #expect(throws: HeldBlockError.notRoot) { _ = try await blocks.release(uid: 1_000, by: 1_000) }
        clock.advance(by: 1_799)
        #expect(try await blocks.pass() != nil)
        #expect(layer.domains == ["example.com"])
        clock.advance(by: 1)
        #expect(try await blocks.pass() == nil)
        #expect(layer.domains.isEmpty)
        #expect(try await store.blocks().isEmpty)
        try await blocks.raise(request(strict: true), for: 1_000)
        #expect(try await blocks.release(uid: nil, by: 0).count == 1)
        #expect(layer.domains.isEmpty)
    }

    @Test("a wall clock moved forward does not end a strict block: it waits for its boot time")
    func movedClock() async throws {
        try await blocks.raise(request(strict: true), for: 1_000)
        clock.setWallClock(to: clock.now() + 7_200)
        let next = try await blocks.pass()
        #expect(layer.domains == ["example.com"])
        #expect(next != nil && next! <= clock.now() + HeldBlocks.checkpointInterval)
        clock.advance(by: 1_800)
        try await blocks.pass()
        #expect(layer.domains.isEmpty)
    }

    @Test("status counts a strict block's time served up to now: its end is exact between the service's checkpoints (issue 44)")
    func statusIsCurrent() async throws {
        try await blocks.raise(request(strict: true, length: 1_800), for: 1_000)
        clock.advance(by: 100)
        clock.setWallClock(to: clock.now() + 600)
        let held = try #require(try await blocks.status(of: 1_000).first)
        // The wall clock moved 600 s ahead: the boot time owed (1,700 s) holds it.
        #expect(held.end(at: clock.now()) == clock.now() + 1_700, "not 1,800 s: the 100 s served since the raise count")
    }

    @Test("across a reboot a strict block keeps the boot time it has yet to serve, however long the machine was off")
    func reboot() async throws {
        try await blocks.raise(request(strict: true), for: 1_000)
        clock.advance(by: 600)
        try await blocks.pass()                                   // a checkpoint: 600 s served
        clock.reboot(after: 3_600)                                // off for an hour: the planned end has passed
        try await blocks.pass()
        #expect(layer.domains == ["example.com"], "restored, not lifted")
        clock.advance(by: 1_199)
        try await blocks.pass()
        #expect(layer.domains == ["example.com"])
        clock.advance(by: 1)
        try await blocks.pass()
        #expect(layer.domains.isEmpty, "lifted once its whole length was served")
    }

    @Test("a new session replaces a user's block unless it is strict; a strict block gains targets but never loses one")
    func replacing() async throws {
        let first = SessionID()
        try await blocks.raise(request(first, ["a.example"]), for: 1_000)
        try await blocks.raise(request(SessionID(), ["b.example"]), for: 1_000)
        #expect(layer.domains == ["b.example"])
        let strict = SessionID()
        try await blocks.raise(request(strict, ["c.example"], strict: true), for: 1_000)
        await #expect(throws: HeldBlockError.self) { try await blocks.raise(request(SessionID(), ["d.example"]), for: 1_000) }
        try await blocks.raise(request(strict, ["e.example"], strict: true), for: 1_000)
        #expect(layer.domains == ["c.example", "e.example"])
    }

    @Test("users' blocks merge; one user cannot lower another's")
    func users() async throws {
        let mine = SessionID()
        try await blocks.raise(request(mine, ["shared.example", "a.example"]), for: 1_000)
        try await blocks.raise(request(SessionID(), ["shared.example"]), for: 2_000)
        try await blocks.lower(mine, for: 2_000)
        #expect(layer.domains == ["shared.example", "a.example"])
        try await blocks.lower(mine, for: 1_000)
        #expect(layer.domains == ["shared.example"])
        #expect(try await blocks.status(of: 1_000).isEmpty)
        #expect(try await blocks.status(of: 2_000).count == 1)
    }

    @Test("a block holds at most 10,000 targets, also a strict one grown by raising it again")
    func bounded() async throws {
        let session = SessionID()
        let many = (0..<6_000).map { "s\($0).example" }
        try await blocks.raise(request(session, many, strict: true), for: 1_000)
        let more = (6_000..<10_001).map { "s\($0).example" }
        await #expect(throws: HeldBlockError.self) { try await blocks.raise(request(session, more, strict: true), for: 1_000) }
        #expect(try await blocks.status(of: 1_000).first?.targets.count == 6_000)
    }

    @Test("a pass writes a strict block's served time once its checkpoint is due, not at every pass; its end is reckoned all the same")
    func checkpointWrites() async throws {
        try await blocks.raise(request(strict: true), for: 1_000)
        let written = try await store.blocks()
        clock.advance(by: 10)
        let next = try await blocks.pass()
        #expect(try await store.blocks() == written, "10 s later: nothing written")
        #expect(next == clock.now() + HeldBlocks.checkpointInterval)
        clock.advance(by: 50)
        try await blocks.pass()
        #expect(try await store.blocks().first?.served == 60, "a minute in: written")
        clock.setWallClock(to: clock.now() + 7_200)               // the planned end has passed on the wall clock
        clock.advance(by: 1_730)
        try await blocks.pass()                                    // 1,790 s served, written
        clock.advance(by: 5)
        let end = try await blocks.pass()
        #expect(try await store.blocks().first?.served == 1_790, "5 s later: not written")
        #expect(end == clock.now() + 5, "its end counts the boot time not yet written: \(String(describing: end))")
    }
}

