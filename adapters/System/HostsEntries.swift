/// One user's domains as the hosts layer's block holds them, sorted, each
/// with its four lines (the domain and its `www.`, to `0.0.0.0` and `::`)
/// rendered once: the block of every user's names is these merged, so a
/// raise renders only its own user's names.
struct HostsEntries: Sendable {
    struct Entry: Sendable {
        let domain: String
        let lines: [UInt8]
    }
    let entries: [Entry]

    init(domains: some Collection<String>) {
        entries = domains.sorted().map { domain in
            var lines: [UInt8] = []
            for host in [domain, "www." + domain] { lines += Array("0.0.0.0 \(host)\n:: \(host)\n".utf8) }
            return Entry(domain: domain, lines: lines)
        }
    }

    /// Every user's entries in one sorted list, each domain once (two
    /// users may block the same name).
    static func merged(_ users: some Collection<HostsEntries>) -> [Entry] {
        var merged: [Entry] = []
        for user in users.sorted(by: { $0.entries.count > $1.entries.count }) {
            merged = merge(merged, user.entries)
        }
        return merged
    }

    private static func merge(_ left: [Entry], _ right: [Entry]) -> [Entry] {
        if left.isEmpty { return right }
        if right.isEmpty { return left }
        var merged: [Entry] = []
        merged.reserveCapacity(left.count + right.count)
        var l = left.startIndex, r = right.startIndex
        while l < left.endIndex, r < right.endIndex {
            if left[l].domain < right[r].domain { merged.append(left[l]); l += 1 }
            else if right[r].domain < left[l].domain { merged.append(right[r]); r += 1 }
            else { merged.append(left[l]); l += 1; r += 1 }
        }
        merged += left[l...]
        merged += right[r...]
        return merged
    }
}
