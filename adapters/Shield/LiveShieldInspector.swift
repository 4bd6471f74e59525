import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `shield test` as the calling user sees the machine. First what holds
/// each target: the system service's layers (or, for the hosts shield, its
/// hosts file's block). Then each way to it: what the system resolver
/// answers and whether that accepts a connection on port 80 or 443; what
/// the target's real addresses (asked of the DNS, past the hosts file) do
/// with one; whether a DNS-over-HTTPS service is reachable to lead a
/// browser to them; and for apps whether one of the user's processes by
/// that name runs. `TargetCheck` turns these into the verdict.
public struct LiveShieldInspector: ShieldInspector {
    /// What holds the user's targets, as the configuration says.
    public enum Holder: Sendable, Equatable {
        /// The system service's layers when it answers; the configured
        /// shield (`auto`, `system`, `none`) is named when it does not.
        case service(shield: String)
        /// The hosts shield's file.
        case hostsFile(String)
    }

    let socketPath: String
    let holder: Holder
    let resolver: any AddressResolver
    let timeout: TimeInterval
    let uid: UInt32
    /// The system resolver (a test's stand-in never leaves the machine).
    let lookUp: @Sendable (String) -> SystemResolver.Answer
    /// Where a browser's DNS-over-HTTPS usually goes first.
    let dnsOverHTTPSProbes: [IPAddress]

    public static let defaultDNSOverHTTPSProbes = ["1.1.1.1", "8.8.8.8", "9.9.9.9", "2606:4700:4700::1111"].compactMap(IPText.parse)

    public init(socketPath: String, holder: Holder, resolver: any AddressResolver = DNSResolver(), timeout: TimeInterval = 1,
                uid: UInt32 = getuid(), lookUp: @escaping @Sendable (String) -> SystemResolver.Answer = SystemResolver.lookUp,
                dnsOverHTTPSProbes: [IPAddress] = LiveShieldInspector.defaultDNSOverHTTPSProbes) {
        self.socketPath = socketPath
        self.holder = holder
        self.resolver = resolver
        self.timeout = timeout
        self.uid = uid
        self.lookUp = lookUp
        self.dnsOverHTTPSProbes = dnsOverHTTPSProbes
    }

    public func check(_ targets: [Target]) async -> [TargetCheck] {
        let held = holderChecks(targets)
        let domains = targets.compactMap { if case .domain(let name) = $0 { name.ascii } else { nil } }
        let real = domains.isEmpty ? [:] : await resolver.resolve(domains)
        let answers = domains.map { lookUp($0) }
        // Every connection at once: to the system resolver's answers and
        // the real addresses on both web ports, and to the DoH services.
        var endpoints: [TCPProbe.Endpoint] = []
        var index: [TCPProbe.Endpoint: Int] = [:]
        func probe(_ endpoint: TCPProbe.Endpoint) { if index[endpoint] == nil { index[endpoint] = endpoints.count; endpoints.append(endpoint) } }
        func probeWeb(_ address: IPAddress) { TCPProbe.webPorts.forEach { probe(.init(address: address, port: $0)) } }
        for (name, answer) in zip(domains, answers) {
            if case .addresses(let found) = answer { found.filter { !$0.isLocal }.forEach(probeWeb) }
            real[name]?.addresses.filter { !$0.isLocal }.sorted().forEach(probeWeb)
        }
        let doh = domains.isEmpty ? [] : dnsOverHTTPSProbes.map { TCPProbe.Endpoint(address: $0, port: 443) }
        doh.forEach(probe)
        let outcomes = TCPProbe.attempt(endpoints, timeout: timeout)
        let outcome: ShieldPathFindings.Outcomes = { outcomes[index[$0]!] }
        let dohOutcomes = doh.map { ($0, outcome($0)) }

        var domainIndex = 0
        var checks: [TargetCheck] = []
        for (position, target) in targets.enumerated() {
            var rows = held[position]
            switch target {
            case .domain(let name):
                let answer = answers[domainIndex]
                domainIndex += 1
                // The name layer answers the caller's own DNS: "no such
                // name" is then the block itself, and the real addresses
                // are the service's to know (its firewall row says whether
                // it refuses them).
                let names = rows.first { $0.layer == "names" && $0.kind == .layer && $0.verdict == .blocked }
                let firewall = rows.first { $0.layer == "firewall" && $0.kind == .layer }
                let realReach = names != nil && real[name.ascii].map({ $0.addresses.isEmpty }) ?? true
                    ? ShieldPathFindings.behindNameLayer(firewall: firewall)
                    : ShieldPathFindings.realAddresses(real[name.ascii], outcome)
                rows.append(ShieldPathFindings.resolver(answer, outcome, nameLayer: names != nil))
                rows.append(ShieldPathFindings.connect(realReach))
                rows.append(ShieldPathFindings.dnsOverHTTPS(probes: dohOutcomes, real: realReach))
            case .app(let app):
                let isHeld = TargetCheck(target: target, layers: rows).isHeld
                rows.append(ShieldPathFindings.running(app, uid: uid, held: isHeld))
            }
            checks.append(TargetCheck(target: target, layers: rows))
        }
        return checks
    }

    /// The findings of what may hold each target: the service's layers, the
    /// hosts shield's file, or a row saying that nothing does.
    private func holderChecks(_ targets: [Target]) -> [[LayerCheck]] {
        switch holder {
        case .hostsFile(let path):
            return targets.map { [hostsFileRow($0, path: path)] }
        case .service(let shield):
            if let checks = serviceChecks(targets) { return checks }
            let why = shield == "system" ? "the system service does not answer at \(socketPath)"
                : "the '\(shield)' shield blocks nothing without the system service, which does not answer at \(socketPath)"
            return targets.map { _ in [LayerCheck(layer: "shield", verdict: .open, detail: "no layer holds it: " + why, kind: .layer)] }
        }
    }

    /// The service's layers' findings, per target; nil when it does not answer.
    private func serviceChecks(_ targets: [Target]) -> [[LayerCheck]]? {
        let client = ShieldClient(socketPath: socketPath)
        var checks: [[LayerCheck]] = []
        // In parts the service answers within its limit and the 64 KiB a
        // request line may hold (500 names of up to 100 characters).
        let part = min(500, ShieldProtocol.maximumInspected)
        for start in stride(from: 0, to: max(targets.count, 1), by: part) {
            let chunk = targets[start..<min(start + part, targets.count)]
            guard let answer = try? client.send(.init(op: .inspect, targets: chunk.map(\.description))),
                  let found = answer.checks, found.count == chunk.count else { return nil }
            checks += found
        }
        return checks
    }

    /// Whether the hosts shield's block in `path` holds the target (a
    /// hosts file has no wildcards: the domain itself, or its `www.`).
    private func hostsFileRow(_ target: Target, path: String) -> LayerCheck {
        guard case .domain(let domain) = target else {
            return LayerCheck(layer: "hosts", verdict: .open, detail: "a hosts file cannot block apps", kind: .layer)
        }
        let bytes: [UInt8]
        do { bytes = try POSIXFiles.read(path, limit: 128 << 20) ?? [] } catch {
            return LayerCheck(layer: "hosts", verdict: .unknown, detail: "\(path) cannot be read: \(error)", kind: .layer)
        }
        let held = HostsFile(parsing: bytes).targets.contains { blocked in
            guard case .domain(let name) = blocked else { return false }
            return name.ascii == domain.ascii || "www." + name.ascii == domain.ascii
        }
        return held ? LayerCheck(layer: "hosts", blocked: true, detail: "\(path) holds retime's block of it (0.0.0.0 and ::)")
            : LayerCheck(layer: "hosts", blocked: false, detail: "\(path) holds no block of retime's for it")
    }
}
