import Domain

/// The current-session slot kept under `current` in the `session` suite. The
/// compare-and-swap runs inside the store's atomic update, so it holds across
/// processes.
public struct StoreSessionRepository: SessionRepository {
    public static let suite = "session"
    static let key = "current"
    private let store: any KeyValueStore
    /// The slot's session as last decoded or written by this process.
    private let decoded = DecodedSessions()

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func current() async throws -> Session? {
        guard let raw = try store.values(of: Self.suite)[Self.key] ?? store.defaults(of: Self.suite)[Self.key] else { return nil }
        return try decoded.decode(raw, key: Self.key)
    }

    public func replace(_ expected: Session?, with new: Session?) async throws -> Bool {
        // Emptying the slot of an ended session is redone by the next
        // command if a crash undoes it (see the port).
        let durability: WriteDurability = new == nil && expected?.isActive == false ? .repairable : .durable
        return try store.update(Self.suite, durability: durability) { values in
            let stored = try values[Self.key].map { try decoded.decode($0, key: "\(Self.suite)/\(Self.key)") }
            guard stored == expected else { return false }
            values[Self.key] = try new.map { try decoded.encode($0, key: Self.key) }
            return true
        }
    }

    public func unseen() async throws -> [Session] {
        try store.unseen(Self.suite, key: Self.key).map { try DecodedSessions.session($0, key: "\(Self.suite)/\(Self.key)") }
    }

    public func settle(_ session: Session) async throws {
        try store.settle(Self.suite, key: Self.key, value: try DecodedSessions.json(session, key: Self.key))
    }

    public func lastHeld() async throws -> SessionID? {
        guard case .object(let members)? = try store.lastValue(Self.suite, key: Self.key), case .string(let id)? = members["id"] else { return nil }
        return SessionID(id)
    }

    public func hasEnded(_ id: SessionID) async throws -> Bool {
        try store.hasEnded(Self.suite, key: Self.key, identity: id.description)
    }

    public func blockRaised(for id: SessionID) async throws {
        try store.rememberSource(Self.suite, key: Self.key, identity: id.description)
    }

    public func leavesOut() async throws -> Bool {
        try store.leavesOut(Self.suite)
    }

    public func lastValue(of id: SessionID) async throws -> Session? {
        try store.lastValue(Self.suite, key: Self.key, identity: id.description)
            .map { try DecodedSessions.session($0, key: "\(Self.suite)/\(Self.key)") }
    }

    public func endedElsewhere() async throws -> SessionID? {
        guard case .object(let members)? = try store.valueRemovedElsewhere(Self.suite, key: Self.key), case .string(let id)? = members["id"] else {
            return nil
        }
        return SessionID(id)
    }
}
