import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `shield test` as the calling user sees the machine: what the system
/// service's layers say (or, without a service, what the configured hosts
/// file says), what the system resolver answers, whether the target's real
/// addresses (asked of the DNS, past the hosts file) accept a connection on
/// port 443, whether a DNS-over-HTTPS service is reachable, and for apps
/// whether one of the user's processes by that name runs.
public struct LiveShieldInspector: ShieldInspector {
    let socketPath: String
    /// The hosts file to read when no service answers.
    let hostsFile: String
    let resolver: any AddressResolver
    let timeout: TimeInterval
    let uid: UInt32
    /// The system resolver (a test's stand-in never leaves the machine).
    let lookUp: @Sendable (String) -> SystemResolver.Answer
    /// Where a browser's DNS-over-HTTPS usually goes first.
    let dnsOverHTTPSProbes: [IPAddress]

    public static let defaultDNSOverHTTPSProbes = ["1.1.1.1", "8.8.8.8", "9.9.9.9", "2606:4700:4700::1111"].compactMap(IPText.parse)

    public init(socketPath: String, hostsFile: String, resolver: any AddressResolver = DNSResolver(), timeout: TimeInterval = 1,
                uid: UInt32 = getuid(), lookUp: @escaping @Sendable (String) -> SystemResolver.Answer = SystemResolver.lookUp,
                dnsOverHTTPSProbes: [IPAddress] = LiveShieldInspector.defaultDNSOverHTTPSProbes) {
        self.socketPath = socketPath
        self.hostsFile = hostsFile
        self.resolver = resolver
        self.timeout = timeout
        self.uid = uid
        self.lookUp = lookUp
        self.dnsOverHTTPSProbes = dnsOverHTTPSProbes
    }

    public func check(_ targets: [Target]) async -> [TargetCheck] {
        let service = serviceChecks(targets)
        let domains = targets.compactMap { if case .domain(let name) = $0 { name.ascii } else { nil } }
        let real = domains.isEmpty ? [:] : await resolver.resolve(domains)
        let answers = domains.map { lookUp($0) }
        // Every connection at once: the system resolver's answers, the real
        // addresses, and the DoH probes.
        var probes: [IPAddress] = []
        var index: [IPAddress: Int] = [:]
        func probe(_ address: IPAddress) { if index[address] == nil { index[address] = probes.count; probes.append(address) } }
        let realAddresses = domains.map { name in real[name].map { $0.addresses.filter { !$0.isLocal }.sorted() } ?? [] }
        for (answer, addresses) in zip(answers, realAddresses) {
            if case .addresses(let found) = answer { found.filter { !$0.isLocal }.forEach(probe) }
            addresses.forEach(probe)
        }
        if !domains.isEmpty { dnsOverHTTPSProbes.forEach(probe) }
        let outcomes = TCPProbe.attempt(probes, port: 443, timeout: timeout)
        func outcome(_ address: IPAddress) -> TCPProbe.Outcome { outcomes[index[address]!] }
        let dohOpen = dnsOverHTTPSProbes.first { !domains.isEmpty && outcome($0) == .connected }

        var domainIndex = 0
        var checks: [TargetCheck] = []
        for (position, target) in targets.enumerated() {
            var rows = service?[position] ?? []
            switch target {
            case .domain(let name):
                let (answer, addresses) = (answers[domainIndex], realAddresses[domainIndex])
                domainIndex += 1
                if service == nil { rows.append(hostsRow(name.ascii)) }
                rows.append(Self.resolverRow(answer, outcome: outcome))
                let reached = addresses.first { outcome($0) == .connected }
                rows.append(Self.connectRow(addresses.map { ($0, outcome($0)) }))
                rows.append(Self.dohRow(dohOpen, reached: reached))
            case .app(let app):
                rows.append(runningRow(app))
            }
            checks.append(TargetCheck(target: target, layers: rows))
        }
        return checks
    }

    /// The service's layers' findings, per target; nil when it does not answer.
    private func serviceChecks(_ targets: [Target]) -> [[LayerCheck]]? {
        let client = ShieldClient(socketPath: socketPath)
        var checks: [[LayerCheck]] = []
        for start in stride(from: 0, to: max(targets.count, 1), by: 500) {
            let chunk = targets[start..<min(start + 500, targets.count)]
            guard let answer = try? client.send(.init(op: .inspect, targets: chunk.map(\.description))),
                  let found = answer.checks, found.count == chunk.count else { return nil }
            checks += found
        }
        return checks
    }

    private func hostsRow(_ name: String) -> LayerCheck {
        guard let bytes = try? POSIXFiles.read(hostsFile, limit: 128 << 20) else {
            return LayerCheck(layer: "hosts", blocked: false, detail: "\(hostsFile) cannot be read")
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words.dropFirst().contains(where: { $0.lowercased() == name }) else { continue }
            let local = IPText.parse(String(words[0]))?.isLocal ?? false
            return LayerCheck(layer: "hosts", blocked: local, detail: "\(hostsFile) sends it to \(words[0])")
        }
        return LayerCheck(layer: "hosts", blocked: false, detail: "\(hostsFile) does not name it")
    }

    /// A path: a program that asks the system resolver, and connects to
    /// what it answers.
    private static func resolverRow(_ answer: SystemResolver.Answer, outcome: (IPAddress) -> TCPProbe.Outcome) -> LayerCheck {
        guard case .addresses(let addresses) = answer else {
            if case .none(let reason) = answer { return LayerCheck(layer: "resolver", blocked: true, detail: "no address (\(reason))", isPath: true) }
            return LayerCheck(layer: "resolver", blocked: true, detail: "no address", isPath: true)
        }
        let list = addresses.map(\.description).joined(separator: ", ")
        if let open = addresses.first(where: { !$0.isLocal && outcome($0) == .connected }) {
            return LayerCheck(layer: "resolver", blocked: false, detail: "answers \(list); \(endpoint(open)) accepts a connection", isPath: true)
        }
        let real = addresses.filter { !$0.isLocal }
        return LayerCheck(layer: "resolver", blocked: true,
                          detail: "answers \(list)" + (real.isEmpty ? "" : ", which refuses a connection"), isPath: true)
    }

    /// Not a path by itself (a program must know the address): whether the
    /// target's real addresses, as the DNS gives them, accept a connection.
    private static func connectRow(_ attempts: [(IPAddress, TCPProbe.Outcome)]) -> LayerCheck {
        guard !attempts.isEmpty else { return LayerCheck(layer: "connect", blocked: true, detail: "the DNS gave no real address to try") }
        if let open = attempts.first(where: { $0.1 == .connected }) {
            return LayerCheck(layer: "connect", blocked: false, detail: "its real address \(endpoint(open.0)) accepts a connection")
        }
        let details = attempts.map { address, outcome -> String in
            if case .refused(let reason) = outcome { return "\(endpoint(address)) refused (\(reason.lowercased()))" }
            return "\(endpoint(address)) no answer in 1 s"
        }
        return LayerCheck(layer: "connect", blocked: true, detail: details.joined(separator: "; "))
    }

    /// A path: a browser that resolves by DNS-over-HTTPS (past the hosts
    /// file) and connects to the real address.
    private static func dohRow(_ open: IPAddress?, reached: IPAddress?) -> LayerCheck {
        guard let open else { return LayerCheck(layer: "doh", blocked: true, detail: "no DNS-over-HTTPS service answers", isPath: true) }
        guard let reached else {
            return LayerCheck(layer: "doh", blocked: true, detail: "\(endpoint(open)) answers, but the real addresses refuse", isPath: true)
        }
        return LayerCheck(layer: "doh", blocked: false,
                          detail: "\(endpoint(open)) answers and \(endpoint(reached)) accepts: DNS-over-HTTPS gets around the hosts file",
                          isPath: true)
    }

    private static func endpoint(_ address: IPAddress) -> String { address.isV4 ? "\(address):443" : "[\(address)]:443" }

    private func runningRow(_ app: String) -> LayerCheck {
        let name = app.lowercased()
        let running = ProcessTable.pids().compactMap(ProcessTable.entry).filter { entry in
            guard entry.uid == uid else { return false }
            let file = entry.executable.map { String($0.split(separator: "/").last ?? "").lowercased() }
            return entry.comm.lowercased() == name || file == name
        }
        guard !running.isEmpty else { return LayerCheck(layer: "running", blocked: true, detail: "no process of yours by that name", isPath: true) }
        return LayerCheck(layer: "running", blocked: false, detail: "running as pid " + running.map { String($0.pid) }.joined(separator: ", "),
                          isPath: true)
    }
}
