import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The name layer's nftables table, `inet retime_names`: each blocking
/// user's DNS (UDP and TCP to port 53, whatever the destination, systemd's
/// stub at 127.0.0.53 included) redirected, by the socket's owner (`meta
/// skuid`), to that user's own ports of the service's resolver on
/// loopback; and those ports closed to every other user, so nobody can ask
/// another user's resolver what it refuses. Root's queries (the service's
/// own among them) are never redirected. A table of its own, replaced whole
/// in one `nft -f -` transaction: the firewall layer replaces its table
/// whole too, and neither may drop the other's rules.
///
/// Each blocking user's DNS flows, and its resolver's answers, are tracked
/// in a connection-tracking zone of that user's (`zone(of:)`): the kernel
/// keeps a flow's address translation by its addresses and ports, not by
/// user, so without zones a lookup of another user (or root) from a source
/// port the blocked user used moments before followed the blocked user's
/// redirect and was refused (semantics.md, "Service, second pass").
public struct NameRedirect: Sendable {
    public static let table = "retime_names"
    /// How `nft` is run: its path, or a prefix that runs it elsewhere.
    let command: [String]

    /// One user's ports on loopback, by protocol and family; nil where no
    /// socket could be made (no IPv6): that user's DNS of that kind is
    /// then refused, never let past.
    public struct Ports: Sendable, Equatable {
        public var udp4: UInt16
        public var tcp4: UInt16
        public var udp6: UInt16?
        public var tcp6: UInt16?

        public init(udp4: UInt16, tcp4: UInt16, udp6: UInt16?, tcp6: UInt16?) {
            self.udp4 = udp4
            self.tcp4 = tcp4
            self.udp6 = udp6
            self.tcp6 = tcp6
        }
    }

    public init(command: [String]) {
        self.command = command
    }

    /// The system's `nft`, if it is installed.
    public static func system() -> NameRedirect? {
        ToolProcess.locate("nft").map { NameRedirect(command: [$0]) }
    }

    /// Whether the kernel takes such a table (a nat chain with a redirect
    /// needs conntrack and nat; the per-user zones, conntrack zones): one
    /// is made and removed. Nil when it works, else why not.
    public func probe() -> String? {
        do {
            let outcome = try ToolProcess.run(command + ["-f", "-"], input: Data("""
                table inet retime_names_probe {
                  chain zones {
                    type filter hook output priority raw; policy accept;
                    meta skuid 0 udp dport 53 ct zone set 1
                  }
                  chain output {
                    type nat hook output priority -100; policy accept;
                    meta skuid 0 udp dport 53 redirect to :53
                  }
                }
                delete table inet retime_names_probe

                """.utf8))
            return outcome.status == 0 ? nil : "nft refused a nat redirect: \(outcome.errors.trimmed)"
        } catch {
            return "nft could not run: \(error)"
        }
    }

    /// Makes the table redirect exactly `users`' DNS; none removes it.
    public func apply(_ users: [UInt32: Ports]) throws {
        let outcome = try ToolProcess.run(command + ["-f", "-"], input: Data(Self.script(users).utf8))
        guard outcome.status == 0 else { throw FirewallError.nft(outcome.errors.trimmed) }
    }

    /// The table as `nft` lists it, or nil when there is none.
    public func listing() throws -> String? {
        let outcome = try ToolProcess.run(command + ["list", "table", "inet", Self.table])
        return outcome.status == 0 ? String(decoding: outcome.output, as: UTF8.self) : nil
    }

    /// Creating the table first makes the deletion valid when there is none.
    static let removal = "table inet \(table)\ndelete table inet \(table)\n"

    /// The connection-tracking zone of `uid`'s DNS flows: never 0, the
    /// zone of everyone else's. Zones are 16 bits and uids 32: two blocking
    /// users 65,534 uids apart share one, and then only each other's flows.
    public static func zone(of uid: UInt32) -> UInt16 {
        UInt16(1 + uid % 65_534)
    }

    static func script(_ users: [UInt32: Ports]) -> String {
        guard !users.isEmpty else { return removal }
        var zones: [String] = [], redirects: [String] = [], guards: [String] = []
        for (uid, ports) in users.sorted(by: { $0.key < $1.key }) {
            let zone = zone(of: uid)
            for (proto, v4, v6) in [("udp", ports.udp4, ports.udp6), ("tcp", ports.tcp4, ports.tcp6)] {
                // The user's questions, and its resolver's answers (from its
                // ports on loopback, where the redirect sends them), in its zone.
                zones.append("meta skuid \(uid) \(proto) dport 53 ct zone set \(zone)")
                zones.append("ip saddr 127.0.0.1 \(proto) sport \(v4) ct zone set \(zone)")
                if let v6 { zones.append("ip6 saddr ::1 \(proto) sport \(v6) ct zone set \(zone)") }
                redirects.append("meta nfproto ipv4 meta skuid \(uid) \(proto) dport 53 redirect to :\(v4)")
                guards.append("meta nfproto ipv4 \(proto) dport \(v4) meta skuid != \(uid) reject")
                if let v6 {
                    redirects.append("meta nfproto ipv6 meta skuid \(uid) \(proto) dport 53 redirect to :\(v6)")
                    guards.append("meta nfproto ipv6 \(proto) dport \(v6) meta skuid != \(uid) reject")
                }
                // The nat chain sees only a flow's first packet: a flow
                // the kernel tracked in the user's zone without the
                // redirect would keep its old destination. By this hook
                // every redirected packet goes to the resolver's port, so
                // one still bound for port 53 was not redirected: refused
                // (a TCP stream reset), never let past. Where the user has
                // no IPv6 port, this refuses all its IPv6 DNS.
                guards.append("meta skuid \(uid) \(proto) dport 53 reject" + (proto == "tcp" ? " with tcp reset" : ""))
            }
        }
        return removal + """
            table inet \(table) {
              chain dns_zones {
                type filter hook output priority raw; policy accept;
            \(zones.map { "    " + $0 }.joined(separator: "\n"))
              }
              chain dns_redirect {
                type nat hook output priority -100; policy accept;
            \(redirects.map { "    " + $0 }.joined(separator: "\n"))
              }
              chain dns_guard {
                type filter hook output priority 0; policy accept;
            \(guards.map { "    " + $0 }.joined(separator: "\n"))
              }
            }

            """
    }
}
