import FoundationEssentials

/// Where the firewall layer learns a domain's real addresses: the DNS
/// itself, never the hosts file (which the hosts layer has pointed at
/// 0.0.0.0).
public protocol AddressResolver: Sendable {
    /// Looks every name up (A and AAAA records, CNAMEs followed). A name
    /// whose lookup failed (no answer, a server failure) is missing from
    /// the result; a name that does not exist has no addresses.
    func resolve(_ names: [String]) async -> [String: Resolution]
}

/// A name's addresses and how long the answer may be kept.
public struct Resolution: Sendable, Equatable {
    public var addresses: Set<IPAddress>
    /// The smallest time-to-live of the records that made the answer.
    public var timeToLive: TimeInterval

    public init(addresses: Set<IPAddress>, timeToLive: TimeInterval) {
        self.addresses = addresses
        self.timeToLive = timeToLive
    }
}
