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

    @Test("an inspect request names its targets; the handler answers a check per target")
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
    }
}
