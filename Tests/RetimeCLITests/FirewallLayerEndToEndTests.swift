#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The firewall layer and `shield test` for real, each in a network
/// namespace of its own (semantics.md, "Layers"): a blocking user's
/// connections to a blocked site's addresses are refused while the block is
/// up, and only that user's, only those addresses (a DNS-over-HTTPS
/// service stays reachable).
@Suite("The firewall layer end to end", .enabled(if: NetworkSandbox.available, "needs root, nftables, iproute2 and python3"))
struct FirewallLayerEndToEndTests {
    /// The service inside `sandbox`, with the firewall on, writing the
    /// sandbox's /etc/hosts (a bind mount: written in place). Names are
    /// blocked by the hosts file unless `names` says otherwise: these
    /// tests are about the firewall beside it (NameLayerEndToEndTests has
    /// the name layer).
    static func service(_ system: SystemServiceHarness, in sandbox: NetworkSandbox, minimumTTL: Int? = nil,
                        firewall: String = "nftables", names: String = "hosts") throws -> RetimeProcess.Running {
        try system.start(launcher: sandbox.launcher, environment: minimumTTL.map { ["RETIME_FIREWALL_MINIMUM_TTL": "\($0)"] } ?? [:],
                         hostsFile: "/etc/hosts", layers: ["--firewall", firewall, "--apps", "on", "--names", names])
    }

    static func user(_ system: SystemServiceHarness, in sandbox: NetworkSandbox, uid: UInt32 = 65_534) -> RetimeProcess {
        var user = system.client(uid: uid)
        user.launcher = sandbox.launcher + user.launcher
        return user
    }

    @Test("refused to the blocking user while the block is up, cut if open, followed when the DNS changes; root, other sites and DoH untouched")
    func firewall() throws {
        let sandbox = try NetworkSandbox(ttl: 1)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox, minimumTTL: 1)
        defer { system.stop(service) }
        let user = Self.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "connected", "open before the block")
        #expect(try sandbox.table() == nil, "no table while no block is up")
        let held = try sandbox.holdConnection("10.0.0.2", uid: 65_534, seconds: 20)
        #expect(String(decoding: held.1.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("connected"))

        let start = try user.run("start", "work", "--for", "30m")
        #expect(start.status == 0, "\(start.err)")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "ECONNREFUSED")
        #expect(try sandbox.connect("fd00::2", uid: 65_534) == "ECONNREFUSED")
        #expect(try sandbox.connect("10.0.0.3", uid: 65_534) == "connected", "open.test is not blocked")
        #expect(try sandbox.connect(NetworkSandbox.dnsOverHTTPS, uid: 65_534) == "connected",
                "a DNS-over-HTTPS service stays reachable: a browser set to use only it still resolves every other site")
        #expect(try sandbox.connect("10.0.0.2", port: 80, uid: 65_534) == "ECONNREFUSED")
        #expect(try sandbox.connect("10.0.0.2") == "connected", "root's own connections are not blocked")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_533) == "connected", "another user's are not")
        let ended = String(decoding: held.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(ended.contains("cut: ECONNABORTED"), "the connection opened before the block was cut: \(ended)")
        let table = try #require(try sandbox.table())
        #expect(table.contains("65534 . 10.0.0.2") && table.contains("65534 . fd00::2"), "\(table)")
        #expect(!table.contains(NetworkSandbox.dnsOverHTTPS), "no DNS-over-HTTPS endpoint is refused: \(table)")

        // The DNS moves blocked.test: within the (shortened) TTL, the new address is refused.
        try sandbox.setRecords(["blocked.test": ["10.0.0.4"], "open.test": ["10.0.0.3"]])
        #expect(eventually(within: 10) { (try? sandbox.connect("10.0.0.4", uid: 65_534)) == "ECONNREFUSED" }, "the new address is followed")

        #expect(try user.run("stop").status == 0)
        #expect(try sandbox.connect("10.0.0.4", uid: 65_534) == "connected", "open again after the block")
        #expect(try sandbox.table() == nil, "the table goes with the last block")
    }

    @Test("the table is restored when the service starts again, and lowering one user's block keeps another's")
    func restoredAndMerged() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        var service = try Self.service(system, in: sandbox)
        let first = Self.user(system, in: sandbox), second = Self.user(system, in: sandbox, uid: 65_533)
        for user in [first, second] {
            #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
            #expect(try user.run("start", "work").status == 0)
        }
        system.stop(service)
        _ = try sandbox.run(["nft", "delete", "table", "inet", "retime"])
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "connected", "no service, no table")
        service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "ECONNREFUSED", "restored before the service answers")
        #expect(try first.run("stop").status == 0)
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "connected")
        #expect(try sandbox.connect("10.0.0.2", uid: 65_533) == "ECONNREFUSED", "the other user's block holds")
    }

    @Test("a restart (or a boot) with the DNS down: the addresses last resolved are refused from the first pass, none let through")
    func restoredWithoutDNS() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        var service = try Self.service(system, in: sandbox)
        let user = Self.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "ECONNREFUSED")
        system.stop(service)
        _ = try sandbox.run(["nft", "delete", "table", "inet", "retime"])
        // The DNS is gone (nothing answers at the resolver's address), as at a
        // boot where the network comes up late. Written in place: a bind mount.
        let resolv = try FileHandle(forWritingTo: URL(fileURLWithPath: sandbox.directory + "/resolv.conf"))
        try resolv.truncate(atOffset: 0)
        try resolv.write(contentsOf: Data("nameserver 127.0.0.9\n".utf8))
        try resolv.close()
        service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        #expect(try sandbox.connect("10.0.0.2", uid: 65_534) == "ECONNREFUSED", "refused before any lookup answered")
        #expect(try sandbox.connect("10.0.0.3", uid: 65_534) == "connected", "only the blocked site's addresses")
        #expect(service.process.isRunning)
    }

    @Test("shield test: every layer blocked during the block, open after; status names the layers")
    func shieldTest() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        let user = Self.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("shield", "test").status == 1, "no session, no targets: session.notActive")
        #expect(try user.run("start", "work").status == 0)

        let during = try user.run("shield", "test", "--json")
        #expect(during.status == 0, "\(during.err)")
        let targets = try #require(during.json["targets"] as? [[String: Any]], "\(during.out) \(during.err)")
        #expect(targets.count == 1 && targets[0]["target"] as? String == "blocked.test" && targets[0]["blocked"] as? Bool == true
                && targets[0]["verdict"] as? String == "blocked")
        let layers = Dictionary(uniqueKeysWithValues: (targets[0]["layers"] as? [[String: Any]] ?? []).map { ($0["layer"] as? String ?? "", $0) })
        for (layer, kind) in [("hosts", "layer"), ("firewall", "layer"), ("resolver", "path"), ("connect", "evidence"), ("doh", "path")] {
            #expect(layers[layer]?["blocked"] as? Bool == true && layers[layer]?["verdict"] as? String == "blocked"
                    && layers[layer]?["kind"] as? String == kind, "\(layer): \(layers[layer] ?? [:])")
        }
        let doh = layers["doh"]?["detail"] as? String ?? ""
        #expect(doh.hasPrefix("whatever a DNS-over-HTTPS service answers"), "\(during.out)")
        let open = try user.run("shield", "test", "open.test", "--json")
        #expect(open.status == 1 && open.errorCode == "shield.leak", "an open target exits 1: \(open.err)")
        #expect((open.json["targets"] as? [[String: Any]])?.first?["verdict"] as? String == "open", "\(open.out)")
        let human = try user.run("shield", "test")
        #expect(human.out.contains("blocked.test  blocked") && human.out.contains("Every target is blocked."), "\(human.out)")

        let doctor = try user.run("doctor", "--json")
        let finding = (doctor.json["checks"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "shield test" }
        #expect(finding?["status"] as? String == "ok", "doctor tests the running session's block: \(doctor.out)")

        let status = try user.run("system", "status", "--json")
        let reported = (status.json["layers"] as? [[String: Any]] ?? []).map { "\($0["name"] ?? "")=\($0["active"] as? Bool ?? false)" }
        #expect(reported == ["names=false", "hosts=true", "firewall=true", "apps=true"], "names by the hosts file here: \(status.out)")

        #expect(try user.run("stop").status == 0)
        let after = try user.run("shield", "test", "blocked.test", "--json")
        #expect(after.status == 1 && (after.json["targets"] as? [[String: Any]])?.first?["blocked"] as? Bool == false, "\(after.out)")
    }

    @Test("without the firewall, shield test says DoH gets around the hosts block, and the resolver too once the block is removed by hand")
    func leak() throws {
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox, firewall: "off")
        defer { system.stop(service) }
        let user = Self.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("start", "work").status == 0)
        let held = try user.run("shield", "test", "--json")
        #expect(held.status == 1 && held.errorCode == "shield.leak", "\(held.err)")
        let target = try #require((held.json["targets"] as? [[String: Any]])?.first, "\(held.out) \(held.err)")
        let rows = Dictionary(uniqueKeysWithValues: (target["layers"] as? [[String: Any]] ?? []).map { ($0["layer"] as? String ?? "", $0) })
        #expect(target["verdict"] as? String == "open" && target["blocked"] as? Bool == false, "\(held.out)")
        #expect(rows["hosts"]?["verdict"] as? String == "blocked" && rows["resolver"]?["verdict"] as? String == "blocked", "\(held.out)")
        #expect(rows["firewall"]?["verdict"] as? String == "open" && (rows["firewall"]?["detail"] as? String ?? "").contains("turned off"))
        #expect(rows["doh"]?["verdict"] as? String == "open"
                && (rows["doh"]?["detail"] as? String ?? "").contains("answers at 1.1.1.1:443, and its real address 10.0.0.2:443 accepts"),
                "a DNS-over-HTTPS service answers and the hosts file is all that stands in the way: \(held.out)")

        // Rewritten through the bind mount's source, which the service does
        // not watch (it watches /etc): the block is gone until its next pass.
        try Data(SystemServiceHarness.original.utf8).write(to: URL(fileURLWithPath: sandbox.hosts))
        let leaking = try user.run("shield", "test")
        #expect(leaking.status == 1 && leaking.err.contains("retime: error: 1 of 1 target can still be reached"), "\(leaking.err)")
        #expect(leaking.out.contains("blocked.test  NOT blocked"), "\(leaking.out)")
        #expect(leaking.out.contains("resolver LEAK") && leaking.out.contains("10.0.0.2:443 accepts a connection"), "\(leaking.out)")
        #expect(leaking.out.contains("1 of 1 target can still be reached."), "\(leaking.out)")
        let doctor = try user.run("doctor")
        #expect(doctor.prose.contains("warning  shield test: 1 of 1 targets can still be reached: blocked.test (resolver, doh)"), "\(doctor.out)")
    }
}
