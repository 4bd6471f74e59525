import Domain
import Foundation
import Synchronization

/// The system service's firewall layer: every blocking user's connections
/// to the addresses its blocked domains (and their `www.`) resolve to are
/// refused while the block is up, whatever resolver found them (a
/// browser's DNS-over-HTTPS too, which is left alone: refusing it broke
/// every site for a browser set to use only it). Addresses come from the
/// DNS, never the hosts file, and
/// are looked up again when their answer expires (its time-to-live, kept
/// between `minimumTTL` and `maximumTTL`: no busy loop on a zero TTL, no
/// stale address for hours); a lookup that fails keeps the addresses it
/// had. Connections already open to an address are cut when it is added.
public final class FirewallLayer: BlockLayer, Sendable {
    public var name: String { "firewall" }
    let resolver: any AddressResolver
    let filter: any PacketFilter
    let clock: any Domain.Clock
    let logger: Logger
    let minimumTTL: TimeInterval
    let maximumTTL: TimeInterval

    private struct Answer {
        var addresses: Set<IPAddress>
        var expires: Date
        /// Why the last lookup failed, while it does.
        var failure: Bool
    }

    private struct State {
        var answers: [String: Answer] = [:]
        /// What the table holds, as this layer last made it; nil before the
        /// first enforcement (a table left by an earlier run is replaced).
        var applied: FirewallRules?
        /// Each blocking user's blocked domains: `check` answers a user
        /// about its own, never whether another user blocks a name.
        var domains: [UInt32: BlockedNames] = [:]
    }

    private let state = Mutex(State())

    public init(resolver: any AddressResolver, filter: any PacketFilter, clock: any Domain.Clock, logger: Logger,
                minimumTTL: TimeInterval = 60, maximumTTL: TimeInterval = 900) {
        self.resolver = resolver
        self.filter = filter
        self.clock = clock
        self.logger = logger
        self.minimumTTL = minimumTTL
        self.maximumTTL = maximumTTL
    }

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        let now = clock.now()
        let wanted = Self.names(of: blocks)
        let all = Set(wanted.values.joined())
        var domains: [UInt32: BlockedNames] = [:]
        for block in blocks { domains[block.uid] = BlockedNames((domains[block.uid]?.domains ?? []).union(BlockedNames(targets: block.targets).domains)) }
        let (due, expired) = state.withLock { state in
            state.domains = domains
            state.answers = state.answers.filter { all.contains($0.key) }
            let due = all.filter { state.answers[$0].map { $0.expires <= now } ?? true }
            return (due, due.contains { state.answers[$0] != nil })
        }
        if !due.isEmpty {
            let found = await resolver.resolve(due.sorted())
            state.withLock { state in
                for name in due {
                    if let resolution = found[name] {
                        let ttl = min(max(resolution.timeToLive, minimumTTL), maximumTTL)
                        state.answers[name] = Answer(addresses: resolution.addresses.filter { !$0.isLocal }, expires: now.addingTimeInterval(ttl),
                                                     failure: false)
                    } else {
                        // Kept, and asked again at the shortest interval.
                        let kept = state.answers[name]?.addresses ?? []
                        state.answers[name] = Answer(addresses: kept, expires: now.addingTimeInterval(minimumTTL), failure: true)
                    }
                }
            }
        }
        let (rules, applied, again) = state.withLock { state in
            var rules = FirewallRules()
            for (uid, names) in wanted {
                let addresses = names.reduce(into: Set<IPAddress>()) { $0.formUnion(state.answers[$1]?.addresses ?? []) }
                if !addresses.isEmpty { rules.blocked[uid] = addresses }
            }
            return (rules, state.applied, state.answers.values.map(\.expires).min())
        }
        // At a re-resolution (not at a raise: a new name costs no read of
        // the table), what the kernel holds is checked too: a table removed
        // by hand comes back within the interval.
        let drifted = expired && applied != nil && (try? filter.current()) != (applied!.isEmpty ? nil : applied)
        if rules != applied || drifted {
            try filter.apply(rules)
            state.withLock { $0.applied = rules }
            var cut = 0
            for (uid, addresses) in rules.blocked {
                let added = drifted ? addresses : addresses.subtracting(applied?.blocked[uid] ?? [])
                if !added.isEmpty { cut += (try? filter.cut(uid: uid, addresses: added)) ?? 0 }
            }
            logger.info("firewall rules applied", metadata: ["users": "\(rules.blocked.count)",
                                                               "addresses": "\(rules.blocked.values.map(\.count).reduce(0, +))",
                                                               "connectionsCut": "\(cut)"])
        }
        return again
    }

    public func report() async -> LayerReport {
        let (users, addresses) = state.withLock { state in
            (state.applied?.blocked.count ?? 0, state.applied?.blocked.values.map(\.count).reduce(0, +) ?? 0)
        }
        return LayerReport(name: name, active: true,
                           detail: "nftables table inet retime; users blocked: \(users), addresses refused: \(addresses); looked up again "
                               + "every \(Int(minimumTTL)) s to \(Int(maximumTTL)) s, as the answers' TTL says")
    }

    /// Whether the kernel's table refuses every address the domain (and its
    /// `www.`) resolved to, for `uid`: only `uid`'s own blocked domains are
    /// looked at. A name below one (other than its `www.`) is not resolved
    /// by this layer, so it says so (the name layer refuses the name).
    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        await checks([target], for: uid)[0]
    }

    /// What a target comes to before the table is read.
    private enum Finding {
        case none
        case found(LayerCheck)
        case answers([Answer])
    }

    /// Each target against the kernel's table, read once for them all (a
    /// read runs `nft`: tens of milliseconds), and only when some target
    /// has addresses to look for.
    public func checks(_ targets: [Target], for uid: UInt32) async -> [LayerCheck?] {
        let findings: [Finding] = state.withLock { state in
            targets.map { target in
                guard case .domain(let domain) = target else { return .none }
                var ascii = domain.ascii
                if !(state.domains[uid]?.domains.contains(ascii) ?? false) {
                    let covering = state.domains[uid]?.covering(ascii)
                    if let covering, "www." + covering != ascii {
                        return .found(LayerCheck(layer: name, blocked: false, detail: "below \(covering): only the addresses of \(covering) and "
                                                     + "www.\(covering) are refused, not this name's"))
                    }
                    // Its `www.`: as the domain it belongs to.
                    guard let covering else { return .found(LayerCheck(layer: name, blocked: false, detail: "not among your blocks' domains")) }
                    ascii = covering
                }
                let answers = [ascii, "www." + ascii].compactMap { state.answers[$0] }
                guard !answers.isEmpty else { return .found(LayerCheck(layer: name, blocked: false, detail: "not among your blocks' domains")) }
                return .answers(answers)
            }
        }
        let needsTable = findings.contains { finding in
            if case .answers(let answers) = finding { answers.contains { !$0.addresses.isEmpty } } else { false }
        }
        let table: Result<Set<IPAddress>, any Error> = needsTable ? Result { try filter.current()?.blocked[uid] ?? [] } : .success([])
        return findings.map { finding -> LayerCheck? in
            switch finding {
            case .none: return nil
            case .found(let check): return check
            case .answers(let answers):
                let addresses = answers.reduce(into: Set<IPAddress>()) { $0.formUnion($1.addresses) }
                guard !addresses.isEmpty else {
                    return LayerCheck(layer: name, blocked: false, detail: "the DNS gave no address for it to refuse")
                }
                let held: Set<IPAddress>
                switch table {
                case .success(let set): held = set
                case .failure(let error): return LayerCheck(layer: name, blocked: false, detail: "the table cannot be read: \(error)")
                }
                let missing = addresses.subtracting(held)
                let list = addresses.sorted().map(\.description).joined(separator: ", ")
                return missing.isEmpty
                    ? LayerCheck(layer: name, blocked: true, detail: "refuses \(list)")
                    : LayerCheck(layer: name, blocked: false, detail: "does not refuse \(missing.sorted().map(\.description).joined(separator: ", "))")
            }
        }
    }

    /// Each blocking user's names to resolve: its blocked domains and their `www.`.
    static func names(of blocks: [HeldBlock]) -> [UInt32: Set<String>] {
        var names: [UInt32: Set<String>] = [:]
        for block in blocks {
            for case .domain(let domain) in block.targets {
                names[block.uid, default: []].formUnion([domain.ascii, "www." + domain.ascii])
            }
        }
        return names
    }
}

/// A layer this machine cannot or was told not to run (`--firewall off`,
/// no `nft`, no process events): it enforces nothing and says why.
public struct UnavailableLayer: BlockLayer {
    public let name: String
    public let reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? { nil }

    public func report() async -> LayerReport { LayerReport(name: name, active: false, detail: reason) }

    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        switch (name, target) {
        case ("firewall", .domain), ("apps", .app): LayerCheck(layer: name, blocked: false, detail: reason)
        default: nil
        }
    }
}
