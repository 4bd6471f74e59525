import Foundation
import Testing

/// `shield test`'s three verdicts through the binary, as an unprivileged
/// user (docs/shields.md, "retime shield test"): blocked only when a layer
/// holds the target and every way a browser takes is closed (ports 80 and
/// 443, the resolver, DNS-over-HTTPS); open when one reaches it (exit 1);
/// unknown when what was tried could not be reached. `doctor` says the same.
@Suite("shield test's verdicts end to end", .enabled(if: NetworkSandbox.available, "needs root, nftables, iproute2 and python3"))
struct ShieldVerdictEndToEndTests {
    typealias Row = [String: Any]

    /// The one target's verdict and its rows by layer.
    static func target(_ outcome: RetimeProcess.Outcome) throws -> (verdict: String, rows: [String: Row]) {
        let target = try #require((outcome.json["targets"] as? [Row])?.first, "\(outcome.out) \(outcome.err)")
        let rows = (target["layers"] as? [Row] ?? []).map { ($0["layer"] as? String ?? "", $0) }
        #expect((target["blocked"] as? Bool) == (target["verdict"] as? String == "blocked"), "blocked is true only for the verdict blocked")
        return (target["verdict"] as? String ?? "", Dictionary(uniqueKeysWithValues: rows))
    }

    static func detail(_ row: Row?) -> String { row?["detail"] as? String ?? "" }

    @Test("a site serving only port 80 is open with no session and during another's; once blocked, the firewall refuses port 80 too")
    func portEighty() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try FirewallLayerEndToEndTests.service(system, in: sandbox)
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)

        let idle = try user.run("shield", "test", "plain.test", "--json")
        #expect(idle.status == 1 && idle.errorCode == "shield.leak", "an open site exits 1: \(idle.err)")
        let (verdict, rows) = try Self.target(idle)
        #expect(verdict == "open", "\(idle.out)")
        #expect(rows["resolver"]?["verdict"] as? String == "open" && Self.detail(rows["resolver"]).contains("10.0.0.5:80 accepts a connection"),
                "\(idle.out)")
        #expect(rows["hosts"]?["verdict"] as? String == "open" && rows["firewall"]?["verdict"] as? String == "open", "nothing holds it: \(idle.out)")

        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("start", "work").status == 0)
        let during = try user.run("shield", "test", "plain.test")
        #expect(during.status == 1 && during.out.contains("plain.test  NOT blocked") && during.out.contains("1 of 1 target can still be reached."),
                "a site outside the block is not blocked during it: \(during.out)")
        #expect(!during.out.contains("Every target is blocked"))

        #expect(try user.run("group", "block", "work", "plain.test").status == 0)
        let blocked = try user.run("shield", "test", "plain.test", "--json")
        #expect(blocked.status == 0, "\(blocked.err)")
        let (now, held) = try Self.target(blocked)
        #expect(now == "blocked" && Self.detail(held["connect"]).contains("refuses you on ports 80 and 443"), "\(blocked.out)")
        #expect(try sandbox.connect("10.0.0.5", port: 80, uid: 65_534) == "ECONNREFUSED")
    }

    @Test("the 'none' shield on a machine without DNS: unknown, never blocked, and said plainly (exit 0)")
    func noDNS() throws {
        let sandbox = try NetworkSandbox(dns: false)
        defer { sandbox.stop() }
        var user = try SystemServiceHarness().client()   // no service answers at its socket
        user.launcher = sandbox.launcher + user.launcher
        #expect(try user.run("config", "set", "shield", "none").status == 0)
        #expect(try user.run("group", "create", "work", "--block", "example.test").status == 0)
        #expect(try user.run("start", "work").status == 0)

        let tested = try user.run("shield", "test", "--json")
        #expect(tested.status == 0, "unknown alone is not a leak: \(tested.err)")
        let (verdict, rows) = try Self.target(tested)
        #expect(verdict == "unknown", "\(tested.out)")
        #expect(rows["shield"]?["verdict"] as? String == "open" && Self.detail(rows["shield"]).contains("'none' shield blocks nothing"))
        #expect(rows["resolver"]?["verdict"] as? String == "unknown", "no DNS is no proof of a block: \(tested.out)")
        let human = try user.run("shield", "test")
        #expect(human.out.contains("example.test  unknown (no layer holds it") && !human.out.contains("Every target is blocked"), "\(human.out)")
        #expect(human.out.contains("1 of 1 target could not be shown blocked (unknown)"), "\(human.out)")
    }

    @Test("doctor says what shield test says: a DoH leak around the hosts layer, and a site the DNS does not know as unknown")
    func doctor() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try FirewallLayerEndToEndTests.service(system, in: sandbox, firewall: "off")
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "plain.test").status == 0)
        #expect(try user.run("start", "work").status == 0)

        // The hosts layer holds it, but a DoH service answers and port 80 of its real address accepts.
        let leak = try user.run("shield", "test", "--json")
        #expect(leak.status == 1, "\(leak.err)")
        let (verdict, rows) = try Self.target(leak)
        #expect(verdict == "open" && rows["hosts"]?["verdict"] as? String == "blocked" && rows["doh"]?["verdict"] as? String == "open",
                "\(leak.out)")
        #expect(Self.detail(rows["doh"]).contains("10.0.0.5:80 accepts"), "\(leak.out)")
        let found = try user.run("doctor")
        #expect(found.prose.contains("warning  shield test: 1 of 1 targets can still be reached: plain.test (doh)"), "\(found.out)")

        #expect(try user.run("stop").status == 0)
        #expect(try user.run("group", "create", "gone", "--block", "nowhere.test").status == 0)
        #expect(try user.run("start", "gone").status == 0)
        let untold = try user.run("shield", "test")
        #expect(untold.status == 0 && untold.out.contains("nowhere.test  unknown") && !untold.out.contains("Every target is blocked"),
                "held by the hosts layer, but where DoH would lead is not known: \(untold.out)")
        let doctor = try user.run("doctor")
        #expect(doctor.prose.contains("warning  shield test: 1 of 1 targets could not be shown blocked (unknown): nowhere.test (doh not known)"),
                "\(doctor.out)")
    }
}

/// An app target is blocked only while the service's app layer holds it,
/// never because it merely is not running.
@Suite("shield test of apps", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct ShieldAppVerdictTests {
    @Test("an app that is not running, with no app layer to stop it, is open (exit 1): with the layer off, and with no service")
    func notRunning() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        for user in [system.client(), try SystemServiceHarness().client()] {
            let tested = try user.run("shield", "test", "app:retime-no-such-app", "--json")
            #expect(tested.status == 1 && tested.errorCode == "shield.leak", "\(tested.err)")
            let (verdict, rows) = try ShieldVerdictEndToEndTests.target(tested)
            #expect(verdict == "open", "\(tested.out)")
            #expect(rows["running"]?["verdict"] as? String == "open"
                    && ShieldVerdictEndToEndTests.detail(rows["running"]).contains("no layer would stop it from starting"), "\(tested.out)")
        }
    }
}
