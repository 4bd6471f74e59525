/// What the firewall layer refuses (semantics.md, "Layers"): each blocking
/// user's connections to its blocked addresses, on every port. Nothing
/// else: a browser's DNS-over-HTTPS is left alone, since the addresses it
/// would lead to are refused whatever resolver found them.
public struct FirewallRules: Sendable, Equatable {
    /// Addresses refused, by the uid whose connections are refused.
    public var blocked: [UInt32: Set<IPAddress>]

    public init(blocked: [UInt32: Set<IPAddress>] = [:]) {
        self.blocked = blocked.filter { !$0.value.isEmpty }
    }

    /// No address is refused to anyone: the table should not exist.
    public var isEmpty: Bool { blocked.values.allSatisfy(\.isEmpty) }
}
