import Domain
import Synchronization

/// The packet-filter port in memory: the table it would hold, and the
/// connections it was asked to cut (tests, and a service on a machine
/// without nftables never uses it).
public final class InMemoryPacketFilter: PacketFilter, Sendable {
    private struct State {
        var table: FirewallRules?
        var cuts: [(uid: UInt32, addresses: Set<IPAddress>)] = []
        var applies = 0
        var reads = 0
    }
    private let state = Mutex(State())

    public init() {}

    public func apply(_ rules: FirewallRules) throws {
        state.withLock {
            $0.table = rules.isEmpty ? nil : rules
            $0.applies += 1
        }
    }

    public func current() throws -> FirewallRules? {
        state.withLock {
            $0.reads += 1
            return $0.table
        }
    }

    public func cut(uid: UInt32, addresses: Set<IPAddress>) throws -> Int {
        state.withLock { $0.cuts.append((uid, addresses)) }
        return 0
    }

    /// The connections it was asked to cut, in order.
    public var cuts: [(uid: UInt32, addresses: Set<IPAddress>)] { state.withLock { $0.cuts } }
    /// How many times the table was replaced.
    public var applies: Int { state.withLock { $0.applies } }
    /// How many times the table was read back (`nft -j list`: tens of ms each).
    public var reads: Int { state.withLock { $0.reads } }
    /// Someone removes the table behind the layer's back (`nft delete table`).
    public func removeTable() { state.withLock { $0.table = nil } }
}

/// The resolver port over a fixed set of answers: what a test's DNS holds.
/// A name in `failing` fails (no answer); any other name it does not hold
/// does not exist (no addresses).
public final class FixedAddressResolver: AddressResolver, Sendable {
    private struct State {
        var records: [String: Resolution]
        var failing: Set<String> = []
        var asked: [[String]] = []
    }
    private let state: Mutex<State>

    public init(_ records: [String: Resolution] = [:]) {
        state = Mutex(State(records: records))
    }

    public func resolve(_ names: [String]) async -> [String: Resolution] {
        state.withLock { state in
            state.asked.append(names)
            var found: [String: Resolution] = [:]
            for name in names where !state.failing.contains(name) {
                found[name] = state.records[name] ?? Resolution(addresses: [], timeToLive: 300)
            }
            return found
        }
    }

    public func set(_ name: String, _ resolution: Resolution?) { state.withLock { $0.records[name] = resolution } }
    public func fail(_ names: Set<String>) { state.withLock { $0.failing = names } }
    /// Each call's names, in order.
    public var asked: [[String]] { state.withLock { $0.asked } }
}
