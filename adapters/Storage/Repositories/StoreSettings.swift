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
        try Self.stored(in: store)
    }

    /// The settings in force, read at once (the roots' factories are
    /// synchronous): one read of the store's `config` suite.
    public static func snapshot(of store: any KeyValueStore, dataDirectory: String) throws -> Settings {
        Settings(stored: try stored(in: store), dataDirectory: dataDirectory)
    }

    private static func stored(in store: any KeyValueStore) throws -> [String: String] {
        try store.values(of: suite).reduce(into: [:]) { result, entry in
            result[entry.key] = try JSONValueCoding.decode(String.self, from: entry.value, key: entry.key)
        }
    }
}
