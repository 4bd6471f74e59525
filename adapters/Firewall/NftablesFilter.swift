import CRetimeLinux
import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The packet-filter port over nftables: one table, `inet retime`, replaced
/// whole in one `nft` transaction (a reader never sees half of it), its
/// rules matching the socket's owner (`meta skuid`) and the destination
/// against sets of (uid, address) pairs, so a rule count that never grows
/// with users or addresses. TCP is refused with a reset and the rest with
/// an ICMP "administratively prohibited": programs fail at once, they do
/// not hang. No other table is ever touched.
public struct NftablesFilter: PacketFilter {
    public static let table = "retime"
    /// How `nft` is run: its path, or a prefix that runs it elsewhere (a
    /// test's network namespace).
    let command: [String]

    public init(command: [String]) {
        self.command = command
    }

    /// The system's `nft`, if it is installed.
    public static func system() -> NftablesFilter? {
        ToolProcess.locate("nft").map { NftablesFilter(command: [$0]) }
    }

    /// Whether `nft` runs and the kernel takes a table: an empty table is
    /// made and removed. Nil when it works, else why not.
    public func probe() -> String? {
        do {
            let outcome = try ToolProcess.run(command + ["-f", "-"], input: Data("""
                table inet retime_probe
                delete table inet retime_probe

                """.utf8))
            return outcome.status == 0 ? nil : "nft refused a table: \(outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines))"
        } catch {
            return "nft could not run: \(error)"
        }
    }

    public func apply(_ rules: FirewallRules) throws {
        let script = rules.isEmpty ? Self.removal : Self.script(rules)
        let outcome = try ToolProcess.run(command + ["-f", "-"], input: Data(script.utf8))
        guard outcome.status == 0 else { throw FirewallError.nft(outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    public func current() throws -> FirewallRules? {
        let outcome = try ToolProcess.run(command + ["-j", "list", "table", "inet", Self.table])
        guard outcome.status == 0 else {
            if outcome.errors.contains("No such file or directory") { return nil }
            throw FirewallError.nft(outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return try Self.rules(fromJSON: outcome.output)
    }

    public func cut(uid: UInt32, addresses: Set<IPAddress>) throws -> Int {
        var cut = 0
        for family in [addresses.filter(\.isV4), addresses.filter { !$0.isV4 }] where !family.isEmpty {
            let packed = family.sorted().flatMap(\.bytes)
            let length = family.first!.bytes.count
            let count = packed.withUnsafeBufferPointer { retime_destroy_connections(uid, $0.baseAddress, Int32(family.count), Int32(length)) }
            guard count >= 0 else { throw FirewallError.cut(String(cString: strerror(errno))) }
            cut += Int(count)
        }
        return cut
    }

    /// Creating the table first makes the deletion valid when there is none.
    static let removal = "table inet \(table)\ndelete table inet \(table)\n"

    static func script(_ rules: FirewallRules) -> String {
        func elements(_ items: [String]) -> String { items.isEmpty ? "" : " elements = { \(items.joined(separator: ", ")) }" }
        let pairs = rules.blocked.sorted { $0.key < $1.key }.flatMap { uid, addresses in addresses.sorted().map { (uid, $0) } }
        let v4 = pairs.filter { $0.1.isV4 }.map { "\($0.0) . \($0.1)" }, v6 = pairs.filter { !$0.1.isV4 }.map { "\($0.0) . \($0.1)" }
        let users = rules.blocked.keys.sorted().map(String.init)
        let doh = rules.dnsOverHTTPS.sorted()
        return removal + """
            table inet \(table) {
              set blocked_v4 { typeof meta skuid . ip daddr;\(elements(v4)) }
              set blocked_v6 { typeof meta skuid . ip6 daddr;\(elements(v6)) }
              set users { typeof meta skuid;\(elements(users)) }
              set doh_v4 { typeof ip daddr;\(elements(doh.filter(\.isV4).map(\.description))) }
              set doh_v6 { typeof ip6 daddr;\(elements(doh.filter { !$0.isV4 }.map(\.description))) }
              chain output {
                type filter hook output priority filter; policy accept;
                meta skuid . ip daddr @blocked_v4 meta l4proto tcp reject with tcp reset
                meta skuid . ip daddr @blocked_v4 reject with icmpx admin-prohibited
                meta skuid . ip6 daddr @blocked_v6 meta l4proto tcp reject with tcp reset
                meta skuid . ip6 daddr @blocked_v6 reject with icmpx admin-prohibited
                meta skuid @users ip daddr @doh_v4 meta l4proto { tcp, udp } th dport { 443, 853 } reject with icmpx admin-prohibited
                meta skuid @users ip6 daddr @doh_v6 meta l4proto { tcp, udp } th dport { 443, 853 } reject with icmpx admin-prohibited
              }
            }

            """
    }

    /// The rules as `nft -j list table` shows the sets.
    static func rules(fromJSON data: Data) throws -> FirewallRules {
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let objects = document["nftables"] as? [[String: Any]] else { throw FirewallError.nft("unreadable output of nft -j") }
        var rules = FirewallRules()
        for object in objects {
            guard let set = object["set"] as? [String: Any], let name = set["name"] as? String else { continue }
            let elements = set["elem"] as? [Any] ?? []
            switch name {
            case "blocked_v4", "blocked_v6":
                for element in elements {
                    guard let concat = (element as? [String: Any])?["concat"] as? [Any], concat.count == 2,
                          let uid = (concat[0] as? NSNumber)?.uint32Value, let text = concat[1] as? String,
                          let address = IPText.parse(text) else { continue }
                    rules.blocked[uid, default: []].insert(address)
                }
            case "users":
                for case let uid as NSNumber in elements where rules.blocked[uid.uint32Value] == nil { rules.blocked[uid.uint32Value] = [] }
            case "doh_v4", "doh_v6":
                for case let text as String in elements { if let address = IPText.parse(text) { rules.dnsOverHTTPS.insert(address) } }
            default: continue
            }
        }
        return rules
    }
}

/// Why the firewall could not do what it was asked.
public enum FirewallError: Error, CustomStringConvertible {
    case nft(String)
    case cut(String)

    public var description: String {
        switch self {
        case .nft(let message): "nft failed: \(message)"
        case .cut(let message): "open connections could not be cut: \(message)"
        }
    }
}
