import Domain

/// `shield test`'s findings on the ways to a target, from the outcomes of
/// the connections tried: the system resolver's answer, the target's real
/// addresses, DNS-over-HTTPS, and for an app whether it runs. Each says
/// `open` only of a connection made, `blocked` only of one turned away,
/// and `unknown` of what could not be reached.
enum ShieldPathFindings {
    typealias Outcomes = (TCPProbe.Endpoint) -> TCPProbe.Outcome

    /// What a browser reaches at `addresses` on ports 80 and 443: the
    /// verdict, and the evidence in words.
    static func reach(_ addresses: [IPAddress], _ outcome: Outcomes) -> (verdict: ShieldVerdict, words: String) {
        let tried = addresses.flatMap { address in TCPProbe.webPorts.map { TCPProbe.Endpoint(address: address, port: $0) } }
            .map { ($0, outcome($0)) }
        let verdict = TCPProbe.verdict(tried.map(\.1))
        switch verdict {
        case .open:
            return (.open, "\(tried.first { $0.1 == .connected }!.0) accepts a connection")
        case .blocked:
            let refusing = addresses.count == 1 ? "refuses" : "refuse"
            let noRoute = tried.filter { if case .noRoute = $0.1 { true } else { false } }.map(\.0.address)
            return (.blocked, "\(list(addresses)) \(refusing) you on ports 80 and 443"
                        + (noRoute.isEmpty ? "" : " (no route here to \(list(Array(Set(noRoute)).sorted())))"))
        case .unknown:
            let untold = tried.filter { if case .refused = $0.1 { false } else { true } }
            return (.unknown, "could not be reached: " + untold.prefix(3).map { "\($0.0) \($0.1.words)" }.joined(separator: "; ")
                        + (untold.count > 3 ? "; ..." : ""))
        }
    }

    /// A path: a program that asks the system resolver (the hosts file,
    /// then the DNS), and connects to what it answers.
    /// `nameLayer`: the service's name layer answers the caller's lookups
    /// of this name "no such name", so no address is the block.
    static func resolver(_ answer: SystemResolver.Answer, _ outcome: Outcomes, nameLayer: Bool = false) -> LayerCheck {
        func row(_ verdict: ShieldVerdict, _ detail: String) -> LayerCheck {
            LayerCheck(layer: "resolver", verdict: verdict, detail: detail, kind: .path)
        }
        guard case .addresses(let addresses) = answer else {
            if nameLayer, case .none(let reason) = answer {
                return row(.blocked, "no address (\(reason.lowercased())): the service's resolver refuses the name to you")
            }
            if case .none(let reason) = answer { return row(.unknown, "no address (\(reason.lowercased())): where it leads is not known") }
            return row(.unknown, "no address")
        }
        let answered = "answers " + list(addresses)
        let real = addresses.filter { !$0.isLocal }
        guard !real.isEmpty else { return row(.blocked, answered + ", which leads nowhere") }
        let (verdict, words) = reach(real, outcome)
        switch verdict {
        case .open: return row(.open, answered + "; " + words)
        case .blocked: return row(.blocked, answered + "; " + words)
        case .unknown: return row(.unknown, answered + ", which " + words)
        }
    }

    /// What the target's real addresses, as the DNS gives them past the
    /// hosts file, do with a connection; nil verdict when there are none to
    /// try (nil resolution: the DNS did not answer).
    static func realAddresses(_ resolution: Resolution?, _ outcome: Outcomes) -> (verdict: ShieldVerdict, words: String) {
        guard let resolution else { return (.unknown, "the DNS did not answer: its real addresses are not known") }
        let real = resolution.addresses.filter { !$0.isLocal }.sorted()
        guard !real.isEmpty else { return (.unknown, "the DNS gives no address for it") }
        let (verdict, words) = reach(real, outcome)
        return (verdict, (verdict == .open || real.count == 1 ? "its real address " : "its real addresses ") + words)
    }

    /// The real addresses when the name layer keeps the caller's own DNS
    /// from giving them: refused when the service's firewall row says it
    /// refuses every address its own lookups found, else not known.
    static func behindNameLayer(firewall: LayerCheck?) -> (verdict: ShieldVerdict, words: String) {
        if let firewall, firewall.verdict == .blocked {
            return (.blocked, "the firewall layer \(firewall.detail) (the addresses the service's own lookups found)")
        }
        return (.unknown, "the name layer refuses your lookups, so the real addresses are not known here, and the firewall layer does not "
                    + "refuse them")
    }

    /// Evidence, not a path by itself (a program must know the address).
    static func connect(_ real: (verdict: ShieldVerdict, words: String)) -> LayerCheck {
        LayerCheck(layer: "connect", verdict: real.verdict, detail: real.words, kind: .evidence)
    }

    /// A path: a browser that resolves by DNS-over-HTTPS, which may skip
    /// the hosts file, and connects to the real addresses. Closed when
    /// those refuse the user (the firewall layer), or when no
    /// DNS-over-HTTPS service can be reached at all.
    static func dnsOverHTTPS(probes: [(TCPProbe.Endpoint, TCPProbe.Outcome)], real: (verdict: ShieldVerdict, words: String)) -> LayerCheck {
        func row(_ verdict: ShieldVerdict, _ detail: String) -> LayerCheck {
            LayerCheck(layer: "doh", verdict: verdict, detail: detail, kind: .path)
        }
        if real.verdict == .blocked { return row(.blocked, "whatever a DNS-over-HTTPS service answers, \(real.words)") }
        let service = TCPProbe.verdict(probes.map(\.1))
        let tried = probes.prefix(2).map { "\($0.0) \($0.1.words)" }.joined(separator: ", ") + (probes.count > 2 ? ", ..." : "")
        switch (service, real.verdict) {
        case (.blocked, _):
            return row(.blocked, "no DNS-over-HTTPS service can be reached (\(tried))")
        case (.open, .open):
            let answering = probes.first { $0.1 == .connected }!.0
            return row(.open, "a DNS-over-HTTPS service answers at \(answering), and \(real.words):"
                           + " a browser whose DNS-over-HTTPS skips the hosts file reaches it")
        case (_, .open):
            return row(.unknown, probes.isEmpty ? "no DNS-over-HTTPS service was tried, and \(real.words)"
                           : "no DNS-over-HTTPS service answered (\(tried)), and \(real.words): whether one leads there is not known")
        default:
            return row(.unknown, "\(real.words): where a DNS-over-HTTPS answer leads is not known")
        }
    }

    /// A path: the app started by the user. Closed only while a layer
    /// holds it (it would be terminated); a process running now, by the
    /// app's name or its executable under another (as the app layer tells
    /// them), is a leak.
    static func running(_ app: String, uid: UInt32, held: Bool) -> LayerCheck {
        let matcher = AppMatcher(apps: [uid: [app]], own: nil, ownPath: nil)
        let running = ProcessTable.pids().compactMap(ProcessTable.entry).filter { matcher.match($0) != nil }
        guard running.isEmpty else {
            return LayerCheck(layer: "running", verdict: .open, detail: "running as pid " + running.map { String($0.pid) }.joined(separator: ", "),
                              kind: .path)
        }
        return held ? LayerCheck(layer: "running", verdict: .blocked, detail: "no process of yours by that name", kind: .path)
            : LayerCheck(layer: "running", verdict: .open, detail: "not running, and no layer would stop it from starting", kind: .path)
    }

    static func list(_ addresses: [IPAddress]) -> String { addresses.map(\.description).joined(separator: ", ") }
}
