import Domain

/// The rules every `PacketFilter` keeps: its table holds exactly what it
/// was last given, read back from where it lives; empty rules remove it.
public enum PacketFilterContract {
    public typealias Factory = @Sendable () async throws -> any PacketFilter

    static func address(_ text: String) -> IPAddress {
        let parts = text.split(separator: ".").compactMap { UInt8($0) }
        if parts.count == 4 { return IPAddress(bytes: parts)! }
        // fd00::N
        return IPAddress(bytes: [0xFD, 0] + [UInt8](repeating: 0, count: 13) + [UInt8(text.split(separator: ":").last.flatMap { UInt8($0) } ?? 0)])!
    }

    static let rules = FirewallRules(blocked: [65_534: [address("10.0.0.2"), address("fd00::2")], 1_000: [address("10.0.0.3")]])

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("no table at first; the rules applied are the rules read back") { make in
            let filter = try await make()
            try filter.apply(FirewallRules())
            try require(try filter.current() == nil, "no table before any rule")
            try filter.apply(rules)
            try requireEqual(try filter.current(), rules, "read back")
        },
        ContractCheck("a second apply replaces the table whole: fewer users, fewer addresses") { make in
            let filter = try await make()
            try filter.apply(rules)
            let fewer = FirewallRules(blocked: [1_000: [address("10.0.0.4")]])
            try filter.apply(fewer)
            try requireEqual(try filter.current(), fewer, "only the second rules")
        },
        ContractCheck("rules that refuse no address are no table: a user blocked with no address yet refuses nothing") { make in
            let filter = try await make()
            var none = FirewallRules()
            none.blocked[4_242] = []
            try require(none.isEmpty, "no address, nothing to refuse")
            try filter.apply(rules)
            try filter.apply(none)
            try require(try filter.current() == nil, "the table went with the last address")
        },
        ContractCheck("empty rules remove the table, twice over") { make in
            let filter = try await make()
            try filter.apply(rules)
            try filter.apply(FirewallRules())
            try require(try filter.current() == nil, "removed")
            try filter.apply(FirewallRules())
            try require(try filter.current() == nil, "still none")
        },
        ContractCheck("cutting connections nobody has cuts none and is no error") { make in
            let filter = try await make()
            try filter.apply(rules)
            try requireEqual(try filter.cut(uid: 4_243, addresses: [address("10.0.0.9")]), 0, "cut")
            try filter.apply(FirewallRules())
        },
    ]
}
