/// An IPv4 or IPv6 address, as the firewall layer blocks it: its network
/// bytes (4 or 16), ordered and hashed by them.
public struct IPAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless `bytes` is 4 or 16 bytes long.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public var isV4: Bool { bytes.count == 4 }

    /// 0.0.0.0, ::, 127.0.0.0/8 and ::1: what a blocking hosts file or DNS
    /// answers, never a site's real address, and never to be firewalled (a
    /// user's own local services live there).
    public var isLocal: Bool {
        if isV4 { return bytes[0] == 127 || bytes == [0, 0, 0, 0] }
        return bytes.dropLast().allSatisfy { $0 == 0 } && (bytes[15] == 0 || bytes[15] == 1)
    }

    public static func < (left: IPAddress, right: IPAddress) -> Bool {
        left.bytes.count != right.bytes.count ? left.bytes.count < right.bytes.count : left.bytes.lexicographicallyPrecedes(right.bytes)
    }

    /// Dotted quad, or eight hexadecimal groups with the longest run of
    /// zero groups written `::` (RFC 5952).
    public var description: String {
        if isV4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        func text(_ slice: ArraySlice<Int>) -> String { slice.map { String($0, radix: 16) }.joined(separator: ":") }
        guard best.length > 1 else { return text(groups[...]) }
        return text(groups[..<best.start]) + "::" + text(groups[(best.start + best.length)...])
    }
}
