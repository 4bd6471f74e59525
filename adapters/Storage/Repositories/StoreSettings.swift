import Domain

/// The user's configuration in the `config` suite of a key-value store.
public struct StoreSettings: SettingsStore {
    public static let suite = "config"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func value(for key: String) async throws -> String? {
        try store.value(String.self, forKey: key, in: Self.suite)
    }

    public func set(_ value: String, for key: String) async throws {
        try store.set(value, forKey: key, in: Self.suite)
    }

    public func unset(_ key: String) async throws {
        try store.removeValue(forKey: key, in: Self.suite)
    }

    public func all() async throws -> [String: String] {
        try store.values(of: Self.suite).reduce(into: [:]) { result, entry in
            result[entry.key] = try JSONValueCoding.decode(String.self, from: entry.value, key: entry.key)
        }
    }
}
