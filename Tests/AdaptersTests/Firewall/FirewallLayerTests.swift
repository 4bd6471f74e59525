import Adapters
import Domain
import Foundation
import Synchronization
import Testing

/// The firewall layer's rules and timing, on the manual clock with the
/// in-memory packet filter and a fixed DNS (semantics.md, "Layers").
@Suite("The firewall layer")
struct FirewallLayerTests {
    let clock = ManualClock()
    let filter = InMemoryPacketFilter()
    let dns = FixedAddressResolver()
    var layer: FirewallLayer { FirewallLayer(resolver: dns, filter: filter, clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler())) }

    static func address(_ text: String) -> IPAddress { IPText.parse(text)! }

    func block(_ uid: UInt32, _ targets: [String]) -> HeldBlock {
        HeldBlock(uid: uid, session: SessionID(), targets: targets.map { try! Target(parsing: $0) }, strict: false, plannedEnd: nil,
                  length: nil, at: nil)
    }

    func answer(_ addresses: [String], ttl: TimeInterval) -> Resolution {
        Resolution(addresses: Set(addresses.map(Self.address)), timeToLive: ttl)
    }

    @Test("a user's blocked domains and their www. are refused to that user; nothing else (no DoH endpoint), no one else")
    func rules() async throws {
        dns.set("a.test", answer(["10.0.0.2", "fd00::2"], ttl: 300))
        dns.set("www.a.test", answer(["10.0.0.3"], ttl: 300))
        let layer = layer
        _ = try await layer.enforce([block(1_000, ["a.test", "app:steam"])])
        let table = try #require(try filter.current())
        #expect(table.blocked == [1_000: Set(["10.0.0.2", "fd00::2", "10.0.0.3"].map(Self.address))])
        #expect(filter.cuts.map(\.uid) == [1_000] && filter.cuts[0].addresses.count == 3, "open connections to them are cut")
        #expect(await layer.check(try Target(parsing: "a.test"), for: 1_000)?.blocked == true)
        #expect(await layer.check(try Target(parsing: "a.test"), for: 2_000)?.blocked == false, "another user's connections are not refused")
        #expect(await layer.check(try Target(parsing: "app:steam"), for: 1_000) == nil, "apps are not the firewall's")
    }

    @Test("a DNS that does not answer never holds the pass: it goes on without those names, comes back for them, and another user's names are not held up (issue 28)")
    func lookupsOffTheLoop() async throws {
        let gate = GatedResolver(open: ["b.test": answer(["10.0.0.9"], ttl: 300)], held: ["slow.test": answer(["10.0.0.7"], ttl: 300)])
        let layer = FirewallLayer(resolver: gate, filter: filter, clock: clock, logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let attacker = block(1_000, ["slow.test"]), victim = block(2_000, ["b.test"])
        let again = try await layer.enforce([attacker])
        #expect(again.map { abs($0.timeIntervalSince(clock.now()) - FirewallLayer.lookupPoll) < 0.001 } == true, "comes back soon for the lookup still out")
        #expect(try filter.current()?.blocked[1_000] == nil, "not in the table yet: the pass did not wait for it")
        // Meanwhile another user's block: its names in a lookup of their own, answered at once.
        _ = try await layer.enforce([attacker, victim])
        #expect(try filter.current()?.blocked[2_000] == [Self.address("10.0.0.9")])
        gate.release()
        #expect(await eventuallyAsync { gate.answered })
        clock.advance(by: FirewallLayer.lookupPoll)
        _ = try await layer.enforce([attacker, victim])
        #expect(try filter.current()?.blocked[1_000] == [Self.address("10.0.0.7")], "taken up by the next pass")
    }

    @Test("checks of 1,000 blocked domains read the kernel's table once, not once a domain (issue 28: one request stalled every user)")
    func oneReadPerRequest() async throws {
        let names = (0..<1_000).map { "d\($0).test" }
        for (index, name) in names.enumerated() { dns.set(name, answer(["10.1.\(index / 250).\(index % 250 + 1)"], ttl: 300)) }
        let layer = layer
        _ = try await layer.enforce([block(1_000, names)])
        let before = filter.reads
        let checks = await layer.checks(names.map { try! Target(parsing: $0) }, for: 1_000)
        #expect(filter.reads - before == 1, "\(filter.reads - before) reads of the table")
        #expect(checks.count == 1_000 && checks.allSatisfy { $0?.blocked == true })
    }

    @Test("two users blocking one site: lowering one keeps the other's; the last one removes the table")
    func merged() async throws {
        dns.set("a.test", answer(["10.0.0.2"], ttl: 300))
        let layer = layer
        let first = block(1_000, ["a.test"]), second = block(2_000, ["a.test"])
        _ = try await layer.enforce([first, second])
        _ = try await layer.enforce([second])
        #expect(try filter.current()?.blocked == [2_000: [Self.address("10.0.0.2")]])
        _ = try await layer.enforce([])
        #expect(try filter.current() == nil)
    }

    @Test("answers are asked again when their time-to-live runs out, kept between 1 and 15 minutes")
    func timeToLive() async throws {
        dns.set("a.test", answer(["10.0.0.2"], ttl: 5))
        dns.set("www.a.test", answer([], ttl: 3_600))
        let layer = layer
        let held = [block(1_000, ["a.test"])]
        let start = clock.now()
        #expect(try await layer.enforce(held) == start + 60, "a 5 s TTL is looked at again in a minute, not in 5 s")
        #expect(dns.asked.count == 1)
        clock.advance(by: 30)
        _ = try await layer.enforce(held)
        #expect(dns.asked.count == 1, "nothing asked again before it is due")
        dns.set("a.test", answer(["10.0.0.4"], ttl: 5))
        clock.advance(by: 30)
        #expect(try await layer.enforce(held) == clock.now() + 60)
        #expect(dns.asked.last == ["a.test"], "only what was due")
        #expect(try filter.current()?.blocked[1_000] == [Self.address("10.0.0.4")], "the new address followed, the old one dropped")
        dns.set("a.test", answer(["10.0.0.4"], ttl: 86_400))
        clock.advance(by: 60)
        _ = try await layer.enforce(held)
        #expect(try await layer.enforce(held) == start + 900, "www.a.test's hour is kept to 15 minutes")
    }

    @Test("a lookup that fails keeps the addresses it had and is asked again in 5 s, for a minute of failures, then every minute")
    func failure() async throws {
        dns.set("a.test", answer(["10.0.0.2"], ttl: 300))
        let layer = layer
        let held = [block(1_000, ["a.test"])]
        _ = try await layer.enforce(held)
        dns.fail(["a.test", "www.a.test"])
        clock.advance(by: 300)
        for _ in 0..<FirewallLayer.failureRetries {
            #expect(try await layer.enforce(held) == clock.now() + FirewallLayer.failureRetry)
            #expect(try filter.current()?.blocked[1_000] == [Self.address("10.0.0.2")], "not unblocked by a DNS failure")
            clock.advance(by: FirewallLayer.failureRetry)
        }
        #expect(try await layer.enforce(held) == clock.now() + 60, "a name that keeps failing: asked at the shortest interval")
    }

    @Test("a DNS late at boot: a name that never resolved is in the table within 5 s of the DNS answering, not a minute")
    func lateDNS() async throws {
        dns.fail(["a.test", "www.a.test"])
        let layer = layer
        let held = [block(1_000, ["a.test"])]
        _ = try await layer.enforce(held)
        #expect(try filter.current() == nil)
        clock.advance(by: 20)
        _ = try await layer.enforce(held)
        dns.fail([])
        dns.set("a.test", answer(["10.0.0.2"], ttl: 300))
        clock.advance(by: FirewallLayer.failureRetry)
        _ = try await layer.enforce(held)
        #expect(try filter.current()?.blocked[1_000] == [Self.address("10.0.0.2")])
    }

    @Test("the addresses resolved are kept in the service's store and installed by the next layer (a restart, a reboot) before the DNS answers")
    func keptForBoot() async throws {
        let store = InMemoryKeyValueStore(), logger = Logger(label: "t", handler: InMemoryLogHandler())
        dns.set("a.test", answer(["10.0.0.2"], ttl: 300))
        dns.set("www.a.test", answer(["10.0.0.3"], ttl: 300))
        let held = [block(1_000, ["a.test"])]
        let before = FirewallLayer(resolver: dns, filter: filter, clock: clock, logger: logger, memory: ResolvedAddressMemory(store: store))
        _ = try await before.enforce(held)

        let down = FixedAddressResolver(), booted = InMemoryPacketFilter()
        down.fail(["a.test", "www.a.test"])
        let after = FirewallLayer(resolver: down, filter: booted, clock: clock, logger: logger, memory: ResolvedAddressMemory(store: store))
        #expect(try await after.enforce(held) == clock.now() + FirewallLayer.failureRetry, "looked up again soon")
        #expect(try booted.current()?.blocked[1_000] == Set(["10.0.0.2", "10.0.0.3"].map(Self.address)), "held from the first pass")
        #expect(down.asked.flatMap { $0 }.contains("a.test"), "and asked again at once")

        // Once the block is lowered nothing is kept: the next boot installs nothing.
        _ = try await after.enforce([])
        let empty = InMemoryPacketFilter()
        _ = try await FirewallLayer(resolver: down, filter: empty, clock: clock, logger: logger, memory: ResolvedAddressMemory(store: store)).enforce(held)
        #expect(try empty.current() == nil)
    }

    @Test("a table removed behind its back comes back at the next re-resolution; an unchanged one is not rewritten")
    func drift() async throws {
        dns.set("a.test", answer(["10.0.0.2"], ttl: 60))
        let layer = layer
        let held = [block(1_000, ["a.test"])]
        _ = try await layer.enforce(held)
        _ = try await layer.enforce(held)
        #expect(filter.applies == 1, "the same rules are not applied twice")
        filter.removeTable()
        clock.advance(by: 60)
        _ = try await layer.enforce(held)
        #expect(try filter.current()?.blocked[1_000] == [Self.address("10.0.0.2")])
    }

    @Test("no block, no table, no wake-up")
    func idle() async throws {
        let layer = layer
        #expect(try await layer.enforce([]) == nil)
        #expect(try filter.current() == nil && dns.asked.isEmpty)
        #expect(try await layer.enforce([block(1_000, ["app:steam"])]) == nil, "apps only: nothing to resolve")
        #expect(try filter.current() == nil)
    }
}

/// A DNS whose answers for `held` names wait until it is released (a
/// server that does not answer); the others come at once.
final class GatedResolver: AddressResolver, Sendable {
    private let open: [String: Resolution]
    private let held: [String: Resolution]
    private let gate = DispatchSemaphore(value: 0)
    private let done = Mutex(false)

    init(open: [String: Resolution], held: [String: Resolution]) {
        self.open = open
        self.held = held
    }

    func resolve(_ names: [String]) async -> [String: Resolution] {
        guard names.contains(where: { held[$0] != nil }) else { return open.filter { names.contains($0.key) } }
        gate.wait()
        done.withLock { $0 = true }
        return held.filter { names.contains($0.key) }
    }

    func release() { gate.signal() }
    var answered: Bool { done.withLock { $0 } }
}

/// Whether `condition` holds within `seconds`, asked every 10 ms.
func eventuallyAsync(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
