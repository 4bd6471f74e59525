#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The service's layers against one verifier: the hosts file on a
/// temporary file, the firewall over the in-memory packet filter and a
/// fixed DNS, the app layer reading /proc for apps by names no process has
/// (what it does to real processes: AppLayerEndToEndTests,
/// AppTreeEndToEndTests).
@Suite("The service's layers keep the BlockLayer contract")
struct BlockLayerContractTests {
    static let domains = ["blocked.example.com", "other.example.org"].map { try! Target(parsing: $0) }

    @Test(arguments: BlockLayerContract.checks)
    func hostsLayer(_ check: ContractCheck<BlockLayerContract.Factory>) async throws {
        try await check.run {
            let hosts = TemporaryDirectory().file("hosts")
            try "127.0.0.1 localhost\n".write(toFile: hosts, atomically: true, encoding: .utf8)
            return .init(layer: HostsLayer(path: hosts), targets: Self.domains)
        }
    }

    @Test(arguments: BlockLayerContract.checks)
    func firewallLayer(_ check: ContractCheck<BlockLayerContract.Factory>) async throws {
        try await check.run {
            let dns = FixedAddressResolver()
            dns.set("blocked.example.com", Resolution(addresses: [IPText.parse("10.0.0.2")!], timeToLive: 300))
            dns.set("other.example.org", Resolution(addresses: [IPText.parse("10.0.0.3")!], timeToLive: 300))
            let layer = FirewallLayer(resolver: dns, filter: InMemoryPacketFilter(), clock: ManualClock(),
                                      logger: Logger(label: "t", handler: InMemoryLogHandler()))
            return .init(layer: layer, targets: Self.domains)
        }
    }

    @Test(arguments: BlockLayerContract.checks)
    func appLayer(_ check: ContractCheck<BlockLayerContract.Factory>) async throws {
        try await check.run {
            let names = (0..<2).map { _ in "rtcontract" + String(UUID().uuidString.prefix(5)).lowercased() }
            let layer = AppLayer(logger: Logger(label: "t", handler: InMemoryLogHandler()), eventsReachUs: false, reason: "reads /proc")
            return .init(layer: layer, targets: try names.map { try Target(parsing: "app:" + $0) })
        }
    }
}

/// The name layer against the same verifier: its redirect written by nft
/// in a network namespace of the test's own (never the host's), its
/// resolver on this machine's loopback.
@Suite("The name layer keeps the BlockLayer contract")
struct NameLayerContractTests {
    @Test(.enabled(if: FirewallContractTests.canNamespace, "needs root, unshare and nftables"), arguments: BlockLayerContract.checks)
    func nameLayer(_ check: ContractCheck<BlockLayerContract.Factory>) async throws {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "sleep", "600"]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        let pid = holder.processIdentifier
        #expect(polled { (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("sleep") == true })
        try await check.run {
            let redirect = NameRedirect(command: ["/usr/bin/nsenter", "-t", "\(pid)", "-n", FirewallContractTests.nft!])
            let layer = try NameLayer(redirect: redirect, logger: Logger(label: "t", handler: InMemoryLogHandler()))
            return .init(layer: layer, targets: BlockLayerContractTests.domains)
        }
    }
}
