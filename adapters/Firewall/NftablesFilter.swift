#if canImport(Glibc)
import CRetimeLinux
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
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
            return outcome.status == 0 ? nil : "nft refused a table: \(outcome.errors.trimmed)"
        } catch {
            return "nft could not run: \(error)"
        }
    }

    public func apply(_ rules: FirewallRules) throws {
        let script = rules.isEmpty ? Self.removal : Self.script(rules)
        let outcome = try ToolProcess.run(command + ["-f", "-"], input: Data(script.utf8))
        guard outcome.status == 0 else { throw FirewallError.nft(outcome.errors.trimmed) }
    }

    public func current() throws -> FirewallRules? {
        let outcome = try ToolProcess.run(command + ["-j", "list", "table", "inet", Self.table])
        guard outcome.status == 0 else {
            if outcome.errors.contains("No such file or directory") { return nil }
            throw FirewallError.nft(outcome.errors.trimmed)
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
        return removal + """
            table inet \(table) {
              set blocked_v4 { typeof meta skuid . ip daddr;\(elements(v4)) }
              set blocked_v6 { typeof meta skuid . ip6 daddr;\(elements(v6)) }
              chain output {
                type filter hook output priority filter; policy accept;
                meta skuid . ip daddr @blocked_v4 meta l4proto tcp reject with tcp reset
                meta skuid . ip daddr @blocked_v4 reject with icmpx admin-prohibited
                meta skuid . ip6 daddr @blocked_v6 meta l4proto tcp reject with tcp reset
                meta skuid . ip6 daddr @blocked_v6 reject with icmpx admin-prohibited
              }
            }

            """
    }

    /// The rules as `nft -j list table` shows the sets, read by the store's
    /// byte-level JSON reader.
    static func rules(fromJSON data: Data) throws -> FirewallRules {
        guard case .object(let document)? = try? JSONText.parse(Array(data)), case .array(let objects)? = document["nftables"] else {
            throw FirewallError.nft("unreadable output of nft -j")
        }
        var rules = FirewallRules()
        for case .object(let object) in objects {
            guard case .object(let set)? = object["set"], case .string(let name)? = set["name"] else { continue }
            let elements: [JSONValue] = if case .array(let items)? = set["elem"] { items } else { [] }
            switch name {
            case "blocked_v4", "blocked_v6":
                for case .object(let element) in elements {
                    guard case .array(let concat)? = element["concat"], concat.count == 2, case .int(let uid) = concat[0],
                          let user = UInt32(exactly: uid), case .string(let text) = concat[1], let address = IPText.parse(text) else { continue }
                    rules.blocked[user, default: []].insert(address)
                }
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
