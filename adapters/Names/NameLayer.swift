import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The system service's name layer: each blocking user's own lookups of
/// its blocked names (and every name below them, in any case, with or
/// without a trailing dot) are answered "no such name", and nobody else's
/// change. The user's DNS is redirected by the kernel (`NameRedirect`, by
/// socket owner) to the service's own resolver on loopback (`NameServer`),
/// which refuses those names and forwards every other query to the
/// system's resolvers. Nothing is written where other users can read it:
/// this is what replaces the machine-wide hosts file wherever nftables
/// can redirect.
public final class NameLayer: BlockLayer, ServiceEventSource, Sendable {
    public var name: String { "names" }
    let redirect: NameRedirect
    let server: NameServer
    let logger: Logger
    /// What answers names on this machine out of the redirect's sight.
    let bypasses: NameLookupBypasses

    private struct State {
        var wanted: [UInt32: BlockedNames] = [:]
        /// What the table redirects, as this layer last made it; nil before
        /// the first enforcement (a table left by an earlier run is replaced).
        var applied: [UInt32: NameRedirect.Ports]?
    }
    private let state = Mutex(State())
    /// Each user's blocked names, worked out again only when its targets change.
    private let names = PerUserDerivation { BlockedNames(targets: Array($0.joined())) }

    /// `resolvConf`: where the system's resolvers are named; `upstreamPort`:
    /// theirs (53, but for a test's own); `bypasses`: what to look for that
    /// resolves out of the redirect's sight.
    public init(redirect: NameRedirect, logger: Logger, resolvConf: String = "/etc/resolv.conf", upstreamPort: UInt16 = 53,
                bypasses: NameLookupBypasses = NameLookupBypasses()) throws {
        self.redirect = redirect
        self.logger = logger
        self.bypasses = bypasses
        server = try NameServer(upstream: .init(configuration: resolvConf, port: upstreamPort))
    }

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        let wanted = names.values(of: blocks).filter { !$0.value.isEmpty }
        state.withLock { $0.wanted = wanted }
        let ports = try server.serve(wanted)
        guard ports != state.withLock({ $0.applied }) else { return nil }
        try redirect.apply(ports)
        state.withLock { $0.applied = ports }
        logger.info("name redirects applied", metadata: ["users": "\(ports.count)"])
        return nil
    }

    public func report() async -> LayerReport {
        let (servers, refused, forwarded) = server.statistics()
        let users = state.withLock { $0.applied?.count ?? 0 }
        let upstream = servers.isEmpty ? "no resolver named in \(server.upstreamConfiguration)" : servers.map(\.description).joined(separator: ", ")
        return LayerReport(name: name, active: true,
                           detail: "each blocking user's DNS (UDP and TCP port 53) is answered by the service's resolver on loopback: "
                               + "that user's blocked names and every name below them get 'no such name', other names are forwarded to "
                               + "\(upstream); nobody else's lookups change" + Self.unseen(bypasses.findings()),
                           usage: "users: \(users), refused: \(refused), forwarded: \(forwarded)")
    }

    /// The report's last words: what the layer cannot see, plainly.
    static func unseen(_ findings: [String]) -> String {
        findings.isEmpty ? "" : "; lookups this layer does not see: " + findings.joined(separator: "; ")
    }

    /// Whether `uid`'s lookups of the domain are refused: it is one of that
    /// user's blocked names or below one, and the redirect is in place.
    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        guard case .domain(let domain) = target else { return nil }
        let (names, redirected) = state.withLock { ($0.wanted[uid], $0.applied?[uid] != nil) }
        guard let covering = names?.covering(domain.ascii) else {
            return LayerCheck(layer: name, blocked: false, detail: "not among your blocks' names")
        }
        guard redirected else { return LayerCheck(layer: name, blocked: false, detail: "your DNS is not redirected yet") }
        let below = covering == domain.ascii ? "" : " (it is below \(covering))"
        return LayerCheck(layer: name, blocked: true, detail: "your lookups of \(domain.ascii) get 'no such name' from the service's resolver\(below)")
    }

    // MARK: ServiceEventSource

    public var descriptor: Int32 { server.descriptor }

    public func handle() { server.handle() }
}
