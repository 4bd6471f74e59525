import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
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
/// had and is asked again every `failureRetry` seconds until it resolves
/// (for `failureRetries` tries, then at the shortest interval: a name that
/// does not exist is not asked for ever at that pace). What was resolved
/// is kept in the service's state (`ResolvedAddressMemory`) and installed
/// at the first pass after a restart or a reboot, before the DNS answers.
/// Connections already open to an address are cut when it is added.
///
/// Lookups run off the service's loop: a pass waits for them at most
/// `patience` (a local resolver answers in milliseconds, so the block is
/// in the table before `start` is answered), and a lookup still out then
/// is taken up by a later pass, a tenth of a second on, while the loop
/// serves everyone else: names whose DNS does not answer never stall it.
public final class FirewallLayer: BlockLayer, Sendable {
    public var name: String { "firewall" }
    let resolver: any AddressResolver
    let filter: any PacketFilter
    let clock: any RetimeShared.Clock
    let logger: Logger
    let minimumTTL: TimeInterval
    let maximumTTL: TimeInterval

    private struct Answer {
        var addresses: Set<IPAddress>
        var expires: Date
        /// How many lookups in a row failed (0 once one resolves).
        var failures: Int
    }

    private struct State {
        var answers: [String: Answer] = [:]
        /// What the table holds, as this layer last made it; nil before the
        /// first enforcement (a table left by an earlier run is replaced).
        var applied: FirewallRules?
        /// Each blocking user's blocked domains: `check` answers a user
        /// about its own, never whether another user blocks a name.
        var domains: [UInt32: BlockedNames] = [:]
        /// The lookups a pass did not wait out, taken up by a later one: at
        /// most one a blocking user, so one user's names that the DNS does
        /// not answer never hold up another user's.
        var lookups: [UInt32: Lookup] = [:]
        /// The addresses `memory` holds, as this layer last saved them.
        var saved: [String: Set<IPAddress>] = [:]
        /// Whether the last save failed (said once, until one works).
        var saveFailed = false
    }

    private let state = Mutex(State())
    /// Each user's names to resolve and its blocked names, worked out again
    /// only when its targets change.
    private let derived = PerUserDerivation { targets in
        (resolve: FirewallLayer.names(in: targets.joined()), blocked: BlockedNames(targets: Array(targets.joined())))
    }

    /// How long a pass waits for its lookups before it goes on without them.
    public static let patience: TimeInterval = 0.25
    /// How soon a pass comes back for a lookup still out.
    public static let lookupPoll: TimeInterval = 0.1
    /// How soon a name whose lookup failed is asked again (a DNS late at
    /// boot: the block's new addresses within seconds of it answering).
    public static let failureRetry: TimeInterval = 5
    /// How many failed lookups in a row are retried at that pace: a
    /// minute's worth, then at the shortest interval.
    public static let failureRetries = 12
    /// Where the resolved addresses are kept across restarts; nil: nowhere.
    let memory: ResolvedAddressMemory?

    /// One lookup of names, answered on another thread.
    private final class Lookup: Sendable {
        let names: Set<String>
        private let result = Mutex<[String: Resolution]?>(nil)

        init(names: Set<String>) { self.names = names }

        func finish(_ found: [String: Resolution]) {
            result.withLock { $0 = found }
        }

        /// Its answers, if they have come.
        var answers: [String: Resolution]? { result.withLock { $0 } }

        /// Its answers, waiting for them until `deadline`: suspended, never
        /// holding a thread the lookup itself may need.
        func wait(until deadline: Date) async -> [String: Resolution]? {
            while answers == nil, Date() < deadline { try? await Task.sleep(for: .milliseconds(2)) }
            return answers
        }
    }

    public init(resolver: any AddressResolver, filter: any PacketFilter, clock: any RetimeShared.Clock, logger: Logger,
                minimumTTL: TimeInterval = 60, maximumTTL: TimeInterval = 900, memory: ResolvedAddressMemory? = nil) {
        self.memory = memory
        self.resolver = resolver
        self.filter = filter
        self.clock = clock
        self.logger = logger
        self.minimumTTL = minimumTTL
        self.maximumTTL = maximumTTL
        if let kept = memory?.load(), !kept.isEmpty {
            // Installed at the first pass and looked up again at once; a
            // lookup that fails keeps them.
            state.withLock { state in
                state.saved = kept
                state.answers = kept.mapValues { Answer(addresses: $0, expires: .distantPast, failures: 0) }
            }
        }
    }

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        let now = clock.now()
        let derived = derived.values(of: blocks)
        let wanted = derived.compactMapValues { $0.resolve.isEmpty ? nil : $0.resolve }
        let all = Set(wanted.values.joined())
        let domains = derived.mapValues(\.blocked)
        let (due, expired, outstanding) = state.withLock { state in
            state.domains = domains
            state.answers = state.answers.filter { all.contains($0.key) }
            state.lookups = state.lookups.filter { wanted[$0.key] != nil }
            // Names being looked up already wait for that lookup.
            let asked = state.lookups.values.reduce(into: Set<String>()) { $0.formUnion($1.names) }
            let due = all.filter { !asked.contains($0) && (state.answers[$0].map { $0.expires <= now } ?? true) }
            return (due, due.contains { state.answers[$0] != nil }, state.lookups)
        }
        var pending = outstanding
        for (uid, lookup) in outstanding {
            guard let found = lookup.answers else { continue }
            record(found, for: lookup.names, at: clock.now())
            pending[uid] = nil
        }
        // Each user's due names in a lookup of its own, unless one of its
        // lookups is still out (they wait for the next pass).
        var started: [UInt32: Lookup] = [:], claimed = Set<String>()
        for (uid, names) in wanted.sorted(by: { $0.key < $1.key }) where pending[uid] == nil {
            let mine = names.intersection(due).subtracting(claimed)
            guard !mine.isEmpty else { continue }
            claimed.formUnion(mine)
            let lookup = Lookup(names: mine), resolver = self.resolver
            Task.detached { lookup.finish(await resolver.resolve(mine.sorted())) }
            started[uid] = lookup
        }
        let deadline = Date().addingTimeInterval(Self.patience)
        for (uid, lookup) in started {
            if let found = await lookup.wait(until: deadline) { record(found, for: lookup.names, at: now) } else { pending[uid] = lookup }
        }
        state.withLock { $0.lookups = pending }
        let (rules, applied, expiry) = state.withLock { state in
            var rules = FirewallRules()
            for (uid, names) in wanted {
                let addresses = names.reduce(into: Set<IPAddress>()) { $0.formUnion(state.answers[$1]?.addresses ?? []) }
                if !addresses.isEmpty { rules.blocked[uid] = addresses }
            }
            return (rules, state.applied, state.answers.values.map(\.expires).min())
        }
        remember()
        // A lookup still out brings the next pass soon; its answers then.
        let again = pending.isEmpty ? expiry : min(expiry ?? .distantFuture, clock.now().addingTimeInterval(Self.lookupPoll))
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

    /// Keeps what a lookup found for `names`.
    private func record(_ found: [String: Resolution], for names: Set<String>, at now: Date) {
        state.withLock { state in
            for name in names {
                if let resolution = found[name] {
                    let ttl = min(max(resolution.timeToLive, minimumTTL), maximumTTL)
                    state.answers[name] = Answer(addresses: resolution.addresses.filter { !$0.isLocal }, expires: now.addingTimeInterval(ttl),
                                                 failures: 0)
                } else {
                    // Kept, and asked again in a few seconds (then, after a
                    // minute of failures, at the shortest interval).
                    let kept = state.answers[name]?.addresses ?? [], failures = (state.answers[name]?.failures ?? 0) + 1
                    let retry = failures <= Self.failureRetries ? min(Self.failureRetry, minimumTTL) : minimumTTL
                    state.answers[name] = Answer(addresses: kept, expires: now.addingTimeInterval(retry), failures: failures)
                }
            }
        }
    }

    /// Saves the addresses of the names held now when they changed since
    /// the last save; a failure to save is said, and costs only the next
    /// boot's head start.
    private func remember() {
        guard let memory else { return }
        let current: [String: Set<IPAddress>]? = state.withLock { state in
            let now = state.answers.compactMapValues { $0.addresses.isEmpty ? nil : $0.addresses }
            return now == state.saved ? nil : now
        }
        guard let current else { return }
        do {
            try memory.save(current)
            state.withLock { $0.saved = current; $0.saveFailed = false }
        } catch {
            let first = state.withLock { state in
                defer { state.saveFailed = true }
                return !state.saveFailed
            }
            if first { logger.warning("the resolved addresses could not be kept for the next boot", metadata: ["error": "\(error)"]) }
        }
    }

    public func report() async -> LayerReport {
        let (users, addresses) = state.withLock { state in
            (state.applied?.blocked.count ?? 0, state.applied?.blocked.values.map(\.count).reduce(0, +) ?? 0)
        }
        return LayerReport(name: name, active: true,
                           detail: "nftables table inet retime; addresses looked up again "
                               + "every \(Int(minimumTTL)) s to \(Int(maximumTTL)) s, as the answers' TTL says",
                           usage: "users blocked: \(users), addresses refused: \(addresses)")
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

    /// A user's names to resolve: its blocked domains and their `www.`.
    static func names(in targets: some Sequence<Target>) -> Set<String> {
        var names = Set<String>()
        for case .domain(let domain) in targets { names.formUnion([domain.ascii, "www." + domain.ascii]) }
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
