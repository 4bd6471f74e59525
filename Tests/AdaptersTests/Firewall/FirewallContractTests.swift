#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The firewall layer's ports, each verifier run against every adapter:
/// nftables in a network namespace of the test's own (never the host's
/// table), the DNS resolver against a responder on the loopback.
@Suite("The firewall ports' contracts")
struct FirewallContractTests {
    static let python = "/usr/bin/python3"
    static let responder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../RetimeCLITests/Helpers/dns_responder.py").standardized.path
    static let nft = ["/usr/sbin/nft", "/sbin/nft"].first(where: FileManager.default.isExecutableFile(atPath:))
    static let canNamespace = geteuid() == 0 && nft != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    @Test(arguments: PacketFilterContract.checks)
    func inMemoryPacketFilter(_ check: ContractCheck<PacketFilterContract.Factory>) async throws {
        try await check.run { InMemoryPacketFilter() }
    }

    @Test(.enabled(if: canNamespace, "needs root, unshare and nftables"), arguments: PacketFilterContract.checks)
    func nftablesFilter(_ check: ContractCheck<PacketFilterContract.Factory>) async throws {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "sleep", "600"]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        let pid = holder.processIdentifier
        // The namespace exists once unshare has exec'd sleep.
        #expect(polled { (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("sleep") == true })
        let nft = Self.nft!
        try await check.run { NftablesFilter(command: ["/usr/bin/nsenter", "-t", "\(pid)", "-n", nft]) }
    }

    @Test(arguments: AddressResolverContract.checks)
    func fixedAddressResolver(_ check: ContractCheck<AddressResolverContract.Factory>) async throws {
        try await check.run { records, ttl in
            FixedAddressResolver(records.mapValues { Resolution(addresses: Set($0.compactMap(IPText.parse)), timeToLive: TimeInterval(ttl)) })
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs python3"), arguments: AddressResolverContract.checks)
    func dnsResolver(_ check: ContractCheck<AddressResolverContract.Factory>) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-dns-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("# a test's own\nnameserver 127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: directory + "/resolv.conf"))
        let responders = Responders()
        defer { responders.stop() }
        try await check.run { records, ttl in
            try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: directory + "/records.json"))
            // A free port: tried until one binds.
            for _ in 0..<20 {
                let port = UInt16.random(in: 20_000...60_000)
                let responder = Process()
                responder.executableURL = URL(fileURLWithPath: Self.python)
                responder.arguments = [Self.responder, "127.0.0.1", "\(port)", directory + "/records.json", "\(ttl)"]
                let out = Pipe()
                responder.standardOutput = out
                responder.standardError = FileHandle.nullDevice
                try responder.run()
                responders.add(responder)
                if String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("ready") {
                    return DNSResolver(configurations: [directory + "/resolv.conf"], port: port)
                }
            }
            throw CocoaError(.fileNoSuchFile)
        }
    }

    @Test(arguments: ShieldInspectorContract.checks)
    func liveShieldInspector(_ check: ContractCheck<ShieldInspectorContract.Factory>) async throws {
        let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("retime-hosts-\(UUID().uuidString)").path
        try Data("127.0.0.1 localhost\n0.0.0.0 blocked.test\n".utf8).write(to: URL(fileURLWithPath: hosts))
        defer { try? FileManager.default.removeItem(atPath: hosts) }
        // Nothing leaves the machine: no service, no DNS answer, a stand-in resolver.
        try await check.run {
            LiveShieldInspector(socketPath: hosts + ".no-service.sock", holder: .hostsFile(hosts), resolver: FixedAddressResolver(), timeout: 0.2,
                                lookUp: { _ in .none("not known") }, dnsOverHTTPSProbes: [])
        }
    }

    /// The `none` shield, no service answering: nothing holds anything.
    @Test(arguments: ShieldInspectorContract.checks)
    func liveShieldInspectorWithoutService(_ check: ContractCheck<ShieldInspectorContract.Factory>) async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("retime-no-service-\(UUID().uuidString).sock").path
        try await check.run {
            LiveShieldInspector(socketPath: socket, holder: .service(shield: "none"), resolver: FixedAddressResolver(), timeout: 0.2,
                                lookUp: { _ in .none("not known") }, dnsOverHTTPSProbes: [])
        }
    }
}

/// The DNS responders a check started, stopped when it ends.
final class Responders: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [Process] = []
    func add(_ process: Process) { lock.withLock { processes.append(process) } }
    func stop() {
        lock.withLock { processes }.forEach { kill($0.processIdentifier, SIGKILL); $0.waitUntilExit() }
    }
}

/// Polls `condition` every 10 ms for up to 5 s.
func polled(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        usleep(10_000)
    }
    return false
}
