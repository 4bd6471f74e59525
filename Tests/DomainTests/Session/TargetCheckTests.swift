import Domain
import Testing

/// `shield test`'s verdict: blocked when every path to the target is closed.
@Suite("A target's verdict")
struct TargetCheckTests {
    let target = try! Target(parsing: "example.com")

    @Test("a layer's state alone proves nothing while a path around it is open")
    func paths() {
        let hosts = LayerCheck(layer: "hosts", blocked: true, detail: "held")
        let resolver = LayerCheck(layer: "resolver", blocked: true, detail: "0.0.0.0", isPath: true)
        let doh = LayerCheck(layer: "doh", blocked: false, detail: "reachable", isPath: true)
        #expect(TargetCheck(target: target, layers: [hosts, resolver]).blocked)
        let leaking = TargetCheck(target: target, layers: [hosts, resolver, doh])
        #expect(!leaking.blocked && leaking.leaks == [doh])
        #expect(!TargetCheck(target: target, layers: [LayerCheck(layer: "hosts", blocked: false, detail: "")]).blocked)
        #expect(!TargetCheck(target: target, layers: []).blocked, "nothing checked is not blocked")
    }
}
