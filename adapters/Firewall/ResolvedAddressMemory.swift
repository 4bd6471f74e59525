import Domain
import JSONDocument

/// The addresses the firewall layer last resolved for each name it holds,
/// kept in the service's root-owned state (semantics.md, "A block holds
/// from boot"): after a reboot the service installs them before the DNS
/// answers, so a block restored at boot refuses its sites by address from
/// the first pass, not from the first lookup that succeeds. A cache of the
/// DNS, never of the user's: a damaged or missing record only means the
/// names are looked up again.
public struct ResolvedAddressMemory: Sendable {
    /// The suite of the service's store that holds them: a key a name, its
    /// value the addresses as text.
    public static let suite = "resolved-addresses"
    let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// What was kept, by name; nothing of a record that cannot be read.
    func load() -> [String: Set<IPAddress>] {
        guard let values = try? store.values(of: Self.suite) else { return [:] }
        var kept: [String: Set<IPAddress>] = [:]
        for (name, value) in values {
            guard case .array(let items) = value else { continue }
            let addresses = items.compactMap { item -> IPAddress? in
                if case .string(let text) = item { IPText.parse(text) } else { nil }
            }
            if !addresses.isEmpty { kept[name] = Set(addresses) }
        }
        return kept
    }

    /// Keeps exactly `addresses` (the names no longer held dropped), for
    /// a crash or a power cut to leave them too: the next boot needs them.
    func save(_ addresses: [String: Set<IPAddress>]) throws {
        try store.update(Self.suite, durability: .durable) { values in
            values = addresses.mapValues { .array($0.sorted().map { .string($0.description) }) }
        }
    }
}
