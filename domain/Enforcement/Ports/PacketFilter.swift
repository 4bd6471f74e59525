/// The kernel's packet filter as the firewall layer drives it: one table
/// of retime's own, replaced whole and atomically, never another table.
public protocol PacketFilter: Sendable {
    /// Makes the table hold exactly `rules`; empty rules remove the table.
    func apply(_ rules: FirewallRules) throws
    /// The rules the table holds now, read back from the kernel; nil when
    /// there is no table.
    func current() throws -> FirewallRules?
    /// Cuts `uid`'s open connections to any of `addresses`; returns how many.
    func cut(uid: UInt32, addresses: Set<IPAddress>) throws -> Int
}
