#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The name layer for real, each test in a network namespace of its own
/// (issue 28, item 8): one user's block refuses that user's lookups of the
/// blocked names and every name below them, in any case and with a
/// trailing dot, and nobody else's; the hosts file is not touched; nobody
/// can learn what another user blocks; where the layer cannot run, the
/// hosts file blocks names instead and `system status` says so.
@Suite("The name layer end to end", .enabled(if: NetworkSandbox.available, "needs root, nftables, iproute2 and python3"))
struct NameLayerEndToEndTests {
    static let records = NetworkSandbox.defaultRecords.merging(["sub.blocked.test": ["10.0.0.2"]]) { $1 }
    static let query = NetworkSandbox.helpers + "/dns_query.py"

    static func service(_ system: SystemServiceHarness, in sandbox: NetworkSandbox, names: String = "resolver",
                        firewall: String = "off") throws -> RetimeProcess.Running {
        try system.start(launcher: sandbox.launcher, hostsFile: "/etc/hosts", layers: ["--firewall", firewall, "--apps", "off", "--names", names])
    }

    /// Whether `name` resolves through getaddrinfo for `uid` (root when
    /// nil), and to which addresses.
    static func resolves(_ name: String, in sandbox: NetworkSandbox, uid: UInt32?) throws -> Set<String>? {
        let (status, out) = try sandbox.run(["getent", "ahosts", name], uid: uid)
        return status == 0 ? Set(out.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }) : nil
    }

    /// One DNS question for `uid`, over `proto`, to `server`:`port`.
    static func ask(_ name: String, proto: String = "udp", server: String = "127.0.0.1", port: Int = 53, in sandbox: NetworkSandbox,
                    uid: UInt32?) throws -> String {
        try sandbox.run([NetworkSandbox.python, query, proto, server, "\(port)", name], uid: uid).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A service in a sandbox of its own and two users with a group each:
    /// 65534 blocks `blocked.test`, 65533 `otherBlocks`; no block up.
    static func withTwoUsers(otherBlocks: String = "open.test", _ body: (NetworkSandbox, RetimeProcess.Running, _ user: RetimeProcess, _ other: RetimeProcess) throws -> Void) throws {
        let sandbox = try NetworkSandbox(records: records)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        let other = FirewallLayerEndToEndTests.user(system, in: sandbox, uid: 65_533)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try other.run("group", "create", "work", "--block", otherBlocks).status == 0)
        try body(sandbox, service, user, other)
    }

    static func layers(_ status: RetimeProcess.Outcome) -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: (status.json["layers"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
    }

    @Test("a user's block refuses that user's lookups of the name, its subdomains, any case, a trailing dot; nobody else's; the hosts file untouched")
    func perUser() throws {
        try Self.withTwoUsers(otherBlocks: "plain.test") { sandbox, service, user, other in
            let before = try other.run("shield", "test", "blocked.test", "--json").out
            #expect(try Self.resolves("blocked.test", in: sandbox, uid: 65_534)?.contains("10.0.0.2") == true, "resolves before the block")

            let start = try user.run("start", "work", "--for", "30m")
            #expect(start.status == 0, "\(start.err)")
            #expect(start.prose.contains("Blocking 1 site, each with its subdomains."), "start says what the name layer blocks: \(start.out)")
            for name in ["blocked.test", "sub.blocked.test", "BLOCKED.test.", "www.Blocked.Test"] {
                #expect(try Self.resolves(name, in: sandbox, uid: 65_534) == nil, "\(name) does not resolve for the blocking user")
            }
            #expect(try Self.resolves("open.test", in: sandbox, uid: 65_534)?.contains("10.0.0.3") == true, "an unblocked name resolves as before")
            for uid: UInt32? in [65_533, nil] {
                for name in ["blocked.test", "sub.blocked.test", "BLOCKED.test."] {
                    #expect(try Self.resolves(name, in: sandbox, uid: uid)?.contains("10.0.0.2") == true, "\(name) resolves as before for \(uid.map(String.init) ?? "root")")
                }
            }
            // Over TCP and at any server on port 53, as over UDP.
            #expect(try Self.ask("sub.BLOCKED.test", proto: "tcp", in: sandbox, uid: 65_534) == "NXDOMAIN")
            #expect(try Self.ask("open.test", proto: "tcp", in: sandbox, uid: 65_534) == "NOERROR 10.0.0.3", "forwarded over TCP")
            #expect(try Self.ask("blocked.test", server: "10.0.0.4", in: sandbox, uid: 65_534) == "NXDOMAIN", "any destination on port 53")
            #expect(try Self.ask("blocked.test", in: sandbox, uid: 65_533) == "NOERROR 10.0.0.2")
            #expect(try String(contentsOfFile: sandbox.hosts, encoding: .utf8) == SystemServiceHarness.original, "the hosts file is untouched")

            // Nobody can ask the blocking user's resolver directly, nor learn
            // from the service what it blocks.
            let table = try #require(try sandbox.run(["nft", "list", "table", "inet", "retime_names"]).out as String?)
            let port = try #require(table.split(separator: "\n").first { $0.contains("ipv4") && $0.contains("udp dport 53") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, "\(table)")
            #expect(try Self.ask("blocked.test", port: port, in: sandbox, uid: 65_533) != "NXDOMAIN", "another user cannot ask it")
            let during = try other.run("shield", "test", "blocked.test", "--json").out
            #expect(during == before, "another user's shield test reads the same during the block as before it:\n\(before)\n\(during)")
            let rows = ((try user.run("shield", "test", "sub.blocked.test", "--json").json["targets"] as? [[String: Any]])?.first?["layers"]
                as? [[String: Any]]) ?? []
            let names = rows.first { $0["layer"] as? String == "names" }, resolver = rows.first { $0["layer"] as? String == "resolver" }
            #expect(names?["verdict"] as? String == "blocked" && resolver?["verdict"] as? String == "blocked", "\(rows)")
            #expect(!rows.contains { $0["layer"] as? String == "hosts" }, "no hosts row while the name layer is in force: \(rows)")

            let status = Self.layers(try user.run("system", "status", "--json"))
            #expect(status["names"]?["active"] as? Bool == true && status["hosts"]?["active"] as? Bool == false, "\(status)")

            #expect(try user.run("stop").status == 0)
            for name in ["blocked.test", "sub.blocked.test", "BLOCKED.test."] {
                #expect(try Self.resolves(name, in: sandbox, uid: 65_534)?.contains("10.0.0.2") == true, "\(name) resolves again after stop")
            }
            #expect(try sandbox.run(["nft", "list", "table", "inet", "retime_names"]).status != 0, "the table goes with the last block")
        }
    }

    @Test("over IPv6 too: the blocking user's questions to ::1 or any IPv6 server on port 53 reach its resolver; nobody else's, and nobody else reaches its IPv6 ports")
    func ipv6() throws {
        let sandbox = try NetworkSandbox(records: Self.records)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        // Nothing answers DNS on IPv6 here: a question that is not
        // redirected is refused (TCP) or unanswered (UDP).
        #expect(try Self.ask("open.test", proto: "tcp", server: "::1", in: sandbox, uid: 65_534) == "ECONNREFUSED")
        #expect(try user.run("start", "work", "--for", "30m").status == 0)
        for proto in ["udp", "tcp"] {
            for server in ["::1", "fd00::2"] {
                #expect(try Self.ask("sub.blocked.test", proto: proto, server: server, in: sandbox, uid: 65_534) == "NXDOMAIN",
                        "\(proto) to [\(server)]:53 is answered by the user's resolver")
                #expect(try Self.ask("open.test", proto: proto, server: server, in: sandbox, uid: 65_534) == "NOERROR 10.0.0.3",
                        "\(proto) to [\(server)]:53: the rest forwarded")
            }
        }
        #expect(try Self.ask("blocked.test", proto: "tcp", server: "::1", in: sandbox, uid: 65_533) == "ECONNREFUSED",
                "another user's IPv6 DNS is not redirected")
        let table = try #require(try sandbox.run(["nft", "list", "table", "inet", "retime_names"]).out as String?)
        for proto in ["udp", "tcp"] {
            let port = try #require(table.split(separator: "\n").first { $0.contains("ipv6") && $0.contains("\(proto) dport 53") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, "\(table)")
            let asked = try Self.ask("blocked.test", proto: proto, server: "::1", port: port, in: sandbox, uid: 65_533)
            #expect(asked != "NXDOMAIN" && !asked.hasPrefix("NOERROR"), "another user cannot ask its \(proto) port on ::1: \(asked)")
            #expect(try Self.ask("blocked.test", proto: proto, server: "::1", port: port, in: sandbox, uid: 65_534) == "NXDOMAIN",
                    "its own user can")
        }
        #expect(try user.run("stop").status == 0)
        #expect(try Self.ask("open.test", proto: "tcp", server: "::1", in: sandbox, uid: 65_534) == "ECONNREFUSED", "not redirected after stop")
    }

    @Test("system status says plainly what the name layer cannot see: nss-resolve in /etc/nsswitch.conf, a running nscd")
    func unseenLookups() throws {
        let sandbox = try NetworkSandbox(records: Self.records, overlayEtc: true)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        func names() throws -> String {
            Self.layers(try FirewallLayerEndToEndTests.user(system, in: sandbox).run("system", "status", "--json"))["names"]?["detail"]
                as? String ?? ""
        }
        var service = try Self.service(system, in: sandbox)
        let plain = try names()
        #expect(plain.contains("nobody else's lookups change") && !plain.contains("does not see"), "\(plain)")
        system.stop(service)
        // In the sandbox's /etc (an overlay): glibc asks systemd-resolved
        // first; and a process named nscd runs.
        #expect(try sandbox.run(["/bin/sh", "-c", "printf 'hosts: files resolve [!UNAVAIL=return] dns\\n' > /etc/nsswitch.conf"]).status == 0)
        let nscd = sandbox.directory + "/nscd"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: nscd)
        let running = try Process.run(URL(fileURLWithPath: nscd), arguments: ["600"])
        defer { kill(running.processIdentifier, SIGKILL); running.waitUntilExit() }
        service = try Self.service(system, in: sandbox)
        defer { system.stop(service) }
        let said = try names()
        #expect(said.contains("does not see") && said.contains("nss-resolve") && said.contains("hosts: files resolve dns"), "\(said)")
        #expect(said.contains("nscd (pid"), "\(said)")
        let words = try FirewallLayerEndToEndTests.user(system, in: sandbox).run("system", "status").out
        #expect(words.contains("nss-resolve"), "said in the human status too: \(words)")
    }

    @Test("beside the firewall layer, shield test shows the block: the name refused to you, its addresses refused by the firewall")
    func shieldTest() throws {
        let sandbox = try NetworkSandbox(records: Self.records)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try Self.service(system, in: sandbox, firewall: "nftables")
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("start", "work").status == 0)
        let tested = try user.run("shield", "test", "--json")
        #expect(tested.status == 0, "\(tested.out) \(tested.err)")
        let target = try #require((tested.json["targets"] as? [[String: Any]])?.first, "\(tested.out)")
        let rows = Dictionary(uniqueKeysWithValues: (target["layers"] as? [[String: Any]] ?? []).map { ($0["layer"] as? String ?? "", $0) })
        #expect(target["verdict"] as? String == "blocked", "\(tested.out)")
        for row in ["names", "firewall", "resolver", "doh"] {
            #expect(rows[row]?["verdict"] as? String == "blocked", "\(row): \(rows[row] ?? [:])")
        }
        let status = Self.layers(try user.run("system", "status", "--json"))
        #expect(status.keys.sorted() == ["apps", "firewall", "hosts", "names"] && status["names"]?["active"] as? Bool == true, "\(status)")
    }

    @Test("without the name layer the hosts file blocks names, for everyone, and status says why; the name layer removes that block")
    func fallback() throws {
        let sandbox = try NetworkSandbox(records: Self.records)
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        var service = try Self.service(system, in: sandbox, names: "hosts")
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        #expect(try user.run("group", "create", "work", "--block", "blocked.test").status == 0)
        #expect(try user.run("start", "work", "--for", "30m").status == 0)
        let status = Self.layers(try user.run("system", "status", "--json"))
        #expect(status["names"]?["active"] as? Bool == false && (status["names"]?["detail"] as? String ?? "").contains("--names hosts")
                && (status["names"]?["detail"] as? String ?? "").contains("the hosts file blocks names instead, for every user"), "\(status)")
        #expect(status["hosts"]?["active"] as? Bool == true && (status["hosts"]?["detail"] as? String ?? "").contains("for every user"))
        #expect(try String(contentsOfFile: sandbox.hosts, encoding: .utf8).contains("0.0.0.0 blocked.test"))
        #expect(try Self.resolves("blocked.test", in: sandbox, uid: 65_533)?.contains("0.0.0.0") == true, "machine-wide: another user's lookups too")
        // Asked by another user, the hosts layer says nothing of the block.
        let rows = ((try FirewallLayerEndToEndTests.user(system, in: sandbox, uid: 65_533).run("shield", "test", "blocked.test", "--json")
            .json["targets"] as? [[String: Any]])?.first?["layers"] as? [[String: Any]]) ?? []
        #expect(rows.first { $0["layer"] as? String == "hosts" }?["detail"] as? String == "not among your blocks' names", "\(rows)")

        system.stop(service)
        service = try Self.service(system, in: sandbox, names: "resolver")
        defer { system.stop(service) }
        #expect(try String(contentsOfFile: sandbox.hosts, encoding: .utf8) == SystemServiceHarness.original,
                "the name layer in force, the hosts file's block is gone")
        #expect(try Self.resolves("blocked.test", in: sandbox, uid: 65_533)?.contains("10.0.0.2") == true)
        #expect(try Self.resolves("blocked.test", in: sandbox, uid: 65_534) == nil, "the block held, by the name layer now")
    }

    @Test("a resolver socket or TCP connection opened before the block gets no answer past it: the kernel's flow, made before the redirect, is refused")
    func heldFlows() throws {
        try Self.withTwoUsers { sandbox, service, user, other in
            // Another user's block first: with a nat chain in force, the kernel
            // settles a new flow's address once (here: not redirected), as on
            // any machine with a block or a container runtime's nat table.
            #expect(try other.run("start", "work", "--for", "30m").status == 0)
            let go = FileManager.default.temporaryDirectory.appendingPathComponent("retime-go-\(UUID().uuidString)").path
            defer { unlink(go) }
            // Before the block: a UDP socket connected to the resolver and a TCP
            // connection, each asked once (the kernel tracks both flows, unredirected).
            let (held, out) = try sandbox.start([NetworkSandbox.python, NetworkSandbox.helpers + "/dns_held.py", "127.0.0.1", "blocked.test", go],
                                                uid: 65_534)
            defer { if held.isRunning { held.terminate() } }
            var buffer = "", lines: [String] = []
            func read(until count: Int) {
                while lines.count < count {
                    let chunk = out.fileHandleForReading.availableData
                    guard !chunk.isEmpty else { break }
                    buffer += String(decoding: chunk, as: UTF8.self)
                    lines = buffer.split(separator: "\n").map(String.init)
                }
            }
            read(until: 2)
            #expect(lines.prefix(2) == ["udp NOERROR 10.0.0.2", "tcp NOERROR 10.0.0.2"], "both flows answered before the block: \(lines)")
            #expect(try user.run("start", "work", "--for", "30m").status == 0)
            #expect(FileManager.default.createFile(atPath: go, contents: nil))
            read(until: 4)
            held.waitUntilExit()
            let after = Array(lines.dropFirst(2))
            #expect(after.count == 2, "\(lines)")
            for line in after {
                #expect(!line.contains("10.0.0.2") && !line.contains("NOERROR"), "a flow opened before the block learns nothing past it: \(line)")
            }
            // A new question from the same user still reaches its resolver (over
            // UDP: the test's responder serves one TCP client at a time, and the
            // reset stream's other end is still open there).
            #expect(try Self.ask("blocked.test", proto: "tcp", in: sandbox, uid: 65_534) == "NXDOMAIN")
            #expect(try Self.ask("open.test", in: sandbox, uid: 65_534) == "NOERROR 10.0.0.3")
            #expect(service.process.isRunning)
        }
    }

    @Test("a user's flood of lookups delays neither another user's block nor its lookups")
    func flood() throws {
        try Self.withTwoUsers { sandbox, service, flooder, other in
            #expect(try flooder.run("start", "work", "--for", "30m").status == 0)
            // Floods of refused and forwarded questions, several at once.
            let floods = try (0..<4).map { index in
                try sandbox.start([NetworkSandbox.python, Self.query, "udp", "127.0.0.1", "53", index % 2 == 0 ? "blocked.test" : "open.test", "20000"],
                                  uid: 65_534)
            }
            let begun = Date()
            let start = try other.run("start", "work", "--for", "30m")
            let took = Date().timeIntervalSince(begun)
            #expect(start.status == 0 && took < 5, "the other user's block is raised at once (\(took) s): \(start.err)")
            #expect(try Self.ask("open.test", in: sandbox, uid: 65_533) == "NXDOMAIN", "and refuses its lookups")
            #expect(try Self.ask("blocked.test", in: sandbox, uid: 65_533) == "NOERROR 10.0.0.2", "and forwards the rest")
            for (process, out) in floods {
                process.waitUntilExit()
                let answered = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(answered.hasPrefix("answered"), "\(answered)")
            }
            #expect(service.process.isRunning)
        }
    }

    @Test("another user's and root's lookups from a source port the blocked user just used are answered: the kernel's flows are kept apart by user")
    func sharedSourcePorts() throws {
        try Self.withTwoUsers { sandbox, service, user, other in
            #expect(try user.run("start", "work", "--for", "30m").status == 0)
            let (status, out) = try sandbox.run([NetworkSandbox.python, NetworkSandbox.helpers + "/dns_shared_port.py", "127.0.0.1", "65534", "65533",
                                                 "blocked.test", "open.test", "300", "40000"], uid: nil)
            #expect(status == 0, "\(out)")
            let first = out.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first == "other 300/300 root 300/300 blocked 300/300", "every lookup answered, the blocked user's refused: \(out)")
            // The counts of what every user's blocks did are root's to see.
            let seen = Self.layers(try other.run("system", "status", "--json"))
            #expect(!seen.isEmpty && seen.values.allSatisfy { $0["usage"] is NSNull }, "another user sees no machine-wide counts: \(seen)")
            var root = RetimeProcess()
            root.environment["RETIME_SHIELD_SOCKET"] = user.environment["RETIME_SHIELD_SOCKET"]
            let usage = Self.layers(try root.run("system", "status", "--json"))["names"]?["usage"] as? String ?? ""
            #expect(usage.contains("refused: 300"), "root sees them: \(usage)")
            #expect(service.process.isRunning)
        }
    }
}
