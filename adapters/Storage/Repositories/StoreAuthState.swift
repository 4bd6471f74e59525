import Domain

/// The Auth context's state as one value in the `auth` suite of a key-value
/// store; `update` rides on the store's cross-process atomic update, so
/// two processes counting wrong passcodes never lose a count.
public struct StoreAuthState: AuthStateStore {
    public static let suite = "auth"
    static let key = "state"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func state() async throws -> AuthState {
        try store.value(AuthState.self, forKey: Self.key, in: Self.suite) ?? AuthState()
    }

    public func update<Result: Sendable>(_ body: (inout AuthState) throws -> Result) async throws -> Result {
        var forgotHash = false
        let result = try store.update(Self.suite) { values in
            var state = try values[Self.key].map { try JSONValueCoding.decode(AuthState.self, from: $0, key: Self.key) } ?? AuthState()
            let before = state
            let result = try body(&state)
            if state != before { values[Self.key] = try JSONValueCoding.encode(state, key: Self.key) }
            forgotHash = before.passcodeHash != nil && state.passcodeHash == nil
            return result
        }
        // A hash that is gone (removed, or now held by the system service
        // alone) must not live on in the store's backups, to be cracked offline.
        if forgotHash { try store.discardBackups(of: Self.suite) }
        return result
    }
}
