import Adapters
import Domain
import Foundation
import Testing

/// The system service's wire format across versions of retime.
@Suite("The shield protocol")
struct ShieldProtocolTests {
    @Test("layers read as the service describes them, and as a service from before that named them only")
    func layers() throws {
        let now = ShieldProtocol.Answer(ok: true, layers: [LayerReport(name: "firewall", active: false, detail: "turned off")],
                                        checks: [[LayerCheck(layer: "hosts", blocked: true, detail: "held")]])
        let read = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: try ShieldProtocol.line(now))
        #expect(read == now)
        let old = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: Array(#"{"version":1,"ok":true,"layers":["hosts"]}"#.utf8))
        #expect(old.layers?.map(\.report) == [LayerReport(name: "hosts", active: true, detail: "")])
    }

    @Test("an inspect request names its targets, at most 1,000; the handler answers a check per target")
    func inspect() async throws {
        let blocks = HeldBlocks(store: InMemoryHeldBlockStore(), layers: [HostsLayer(path: "/nonexistent/hosts")], clock: ManualClock(),
                                logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let handler = ShieldRequestHandler(blocks: blocks, clock: ManualClock(), passcodes: { _ in throw HeldBlockError.notRoot })
        let line = try ShieldProtocol.line(ShieldProtocol.Request(op: .inspect, targets: ["a.test", "app:steam"]))
        let (bytes, changed) = await handler.answer(line, from: 1_000)
        let answer = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: bytes)
        #expect(!changed && answer.ok)
        #expect(answer.checks?.count == 2)
        #expect(answer.checks?[0].first?.layer == "hosts" && answer.checks?[1].isEmpty == true, "the hosts layer has nothing to say of apps")
        let bad = try ShieldProtocol.line(ShieldProtocol.Request(op: .inspect, targets: ["not a target!"]))
        #expect(try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: await handler.answer(bad, from: 1_000).answer).ok == false)
        // One request's cost is what another user may wait: a request asks
        // about at most 1,000 targets; more is refused, saying to ask in parts.
        let most = (0..<ShieldProtocol.maximumInspected).map { "n\($0).test" }
        let full = try ShieldProtocol.line(ShieldProtocol.Request(op: .inspect, targets: most))
        #expect(try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: await handler.answer(full, from: 1_000).answer).checks?.count == most.count)
        let over = try ShieldProtocol.line(ShieldProtocol.Request(op: .inspect, targets: most + ["one.more"]))
        let refused = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: await handler.answer(over, from: 1_000).answer)
        #expect(refused.ok == false && refused.error?.message.contains("ask in parts") == true, "\(String(describing: refused.error))")
    }

    @Test("each user's new names to block are budgeted: 20,000 at once, then 5,000 a second; names held cost nothing; another user's share is its own")
    func freshNamesBudget() async throws {
        final class Uptime: @unchecked Sendable { var seconds: TimeInterval = 0 }
        let uptime = Uptime(), clock = ManualClock()
        let blocks = HeldBlocks(store: InMemoryHeldBlockStore(), layers: [], clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let handler = ShieldRequestHandler(blocks: blocks, clock: clock, passcodes: { _ in throw HeldBlockError.notRoot },
                                           raising: PerUserBudget(burst: 40, every: 0.1, now: { uptime.seconds }))
        let session = SessionID()
        func raise(_ round: Int, count: Int = 4_500, by uid: UInt32 = 1_000) async throws -> String {
            let names = (0..<count).map { "r\(round)-\($0).test" }
            let line = try ShieldProtocol.line(ShieldProtocol.Request(op: .raise, session: session, targets: names))
            let answer = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: await handler.answer(line, from: uid).answer)
            return answer.ok ? "ok" : answer.error?.code ?? "?"
        }
        // 9 tokens a raise of 4,500 new names: four fit in 40.
        for round in 0..<4 { #expect(try await raise(round) == "ok", "round \(round)") }
        #expect(try await raise(4) == "system.slowDown", "past 20,000 new names at once")
        #expect(try await raise(3) == "ok", "the names it holds cost nothing (a refresh)")
        #expect(try await raise(9, by: 2_000) == "ok", "another user's share is untouched")
        uptime.seconds += 0.4
        #expect(try await raise(5) == "system.slowDown", "9 tokens: 8 are back after 0.4 s")
        uptime.seconds += 0.1
        #expect(try await raise(5) == "ok")
        #expect(try await raise(6, count: 1) == "system.slowDown", "an empty share refuses before the names are read")
    }
}
