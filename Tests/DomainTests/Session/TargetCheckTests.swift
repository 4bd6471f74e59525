import Domain
import Foundation
import Testing

/// `shield test`'s verdict: blocked only when a layer holds the target and
/// every path to it is closed; open when a path reaches it; else unknown.
@Suite("A target's verdict")
struct TargetCheckTests {
    let target = try! Target(parsing: "example.com")
    let held = LayerCheck(layer: "hosts", blocked: true, detail: "held")
    let notHeld = LayerCheck(layer: "hosts", blocked: false, detail: "not held")
    func path(_ name: String, _ verdict: ShieldVerdict) -> LayerCheck { LayerCheck(layer: name, verdict: verdict, detail: name, kind: .path) }

    @Test("a layer's state alone proves nothing while a path around it is open")
    func paths() {
        #expect(TargetCheck(target: target, layers: [held, path("resolver", .blocked)]).verdict == .blocked)
        let doh = path("doh", .open)
        let leaking = TargetCheck(target: target, layers: [held, path("resolver", .blocked), doh])
        #expect(leaking.verdict == .open && !leaking.blocked && leaking.leaks == [doh])
        #expect(!TargetCheck(target: target, layers: [notHeld]).blocked)
        #expect(TargetCheck(target: target, layers: []).verdict == .unknown, "nothing checked is not blocked")
    }

    @Test("closed paths with no layer holding the target are unknown, never blocked (a site down, no DNS)")
    func nothingHolds() {
        let check = TargetCheck(target: target, layers: [notHeld, path("resolver", .blocked), path("doh", .blocked)])
        #expect(check.verdict == .unknown && check.unknowns == ["no layer holds it"])
        let evidence = LayerCheck(layer: "connect", verdict: .blocked, detail: "refused", kind: .evidence)
        #expect(TargetCheck(target: target, layers: [evidence, path("resolver", .blocked)]).verdict == .unknown,
                "evidence is not a layer that holds it")
    }

    @Test("a path that could not be told makes a held target unknown; an open one makes any target open")
    func untold() {
        let check = TargetCheck(target: target, layers: [held, path("resolver", .blocked), path("doh", .unknown)])
        #expect(check.verdict == .unknown && check.unknowns == ["doh not known"])
        #expect(TargetCheck(target: target, layers: [notHeld, path("resolver", .open), path("doh", .unknown)]).verdict == .open)
    }

    @Test("a finding reads as a service before verdicts wrote it, and is written so that such a client reads it")
    func wire() throws {
        let old = try JSONDecoder().decode(LayerCheck.self, from: Data(#"{"layer":"doh","blocked":false,"detail":"d","isPath":true}"#.utf8))
        #expect(old == LayerCheck(layer: "doh", verdict: .open, detail: "d", kind: .path))
        let written = try JSONEncoder().encode(LayerCheck(layer: "x", verdict: .unknown, detail: "d", kind: .evidence))
        let fields = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(fields["blocked"] as? Bool == false && fields["isPath"] as? Bool == false && fields["verdict"] as? String == "unknown")
        #expect(try JSONDecoder().decode(LayerCheck.self, from: written).kind == .evidence)
    }
}
