/// What the firewall layer refuses (semantics.md, "Layers"): each blocking
/// user's connections to its blocked addresses, and, for every blocking
/// user, its connections to known DNS-over-HTTPS endpoints, so browsers
/// fall back to the system resolver and the hosts file.
public struct FirewallRules: Sendable, Equatable {
    /// Addresses refused, by the uid whose connections are refused.
    public var blocked: [UInt32: Set<IPAddress>]
    /// DNS-over-HTTPS endpoints refused to every uid in `blocked`.
    public var dnsOverHTTPS: Set<IPAddress>

    public init(blocked: [UInt32: Set<IPAddress>] = [:], dnsOverHTTPS: Set<IPAddress> = []) {
        self.blocked = blocked
        self.dnsOverHTTPS = dnsOverHTTPS
    }

    /// No user is blocked: the table should not exist.
    public var isEmpty: Bool { blocked.isEmpty }
}
