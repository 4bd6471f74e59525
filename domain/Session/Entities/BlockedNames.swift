import RetimeGroup

/// The host names one user's blocks refuse (cli.md, "TARGET": a domain
/// blocks its subdomains too): each blocked domain and every name below it,
/// compared as DNS compares names, without regard to ASCII case or a
/// trailing dot. `blocked.test` covers `BLOCKED.test.` and
/// `a.sub.blocked.test`, never `notblocked.test`.
public struct BlockedNames: Sendable, Equatable {
    /// The blocked domains, lower-case, no trailing dot.
    public private(set) var domains: Set<String>

    public init(_ domains: some Sequence<String>) {
        self.domains = Set(domains.map(Self.canonical).filter { !$0.isEmpty })
    }

    /// The domains among `targets` (apps block no name).
    public init(targets: [Target]) {
        self.init(targets.compactMap { target in
            if case .domain(let domain) = target { domain.ascii } else { nil }
        })
    }

    public var isEmpty: Bool { domains.isEmpty }

    /// The blocked domain that covers `name` (the name itself or a domain
    /// it is below), or nil.
    public func covering(_ name: String) -> String? {
        covering(labels: Self.canonical(name).split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The same for a name given as its labels (as a DNS message carries
    /// them, where a label may hold any byte, a dot included: so labels are
    /// compared, never the name's text).
    public func covering(labels: [String]) -> String? {
        let lowered = labels.map(Self.lowercasedASCII)
        guard !domains.isEmpty, !lowered.isEmpty else { return nil }
        for start in lowered.indices {
            // A label with a dot in it is never one of a domain's labels.
            let suffix = lowered[start...]
            guard !suffix.contains(where: { $0.contains(".") }) else { continue }
            let candidate = suffix.joined(separator: ".")
            if domains.contains(candidate) { return candidate }
        }
        return nil
    }

    /// `name` as the domains are kept: ASCII letters lower-cased (DNS
    /// ignores the case of nothing else), trailing dots removed.
    public static func canonical(_ name: String) -> String {
        var text = Substring(name)
        while text.hasSuffix(".") { text = text.dropLast() }
        return lowercasedASCII(String(text))
    }

    static func lowercasedASCII(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
