import Domain

/// The user's configuration in a key-value store: the settings a person
/// shares between devices in the `config` suite, those that belong to one
/// machine (`machineKeys`) in its `machine` suite (docs/storage.md,
/// "Devices"). A machine key found in `config` (written there by an older
/// retime) is not read: each machine has its own.
public struct StoreSettings: SettingsStore {
    public static let suite = "config"
    /// Where the per-machine settings live (in a data folder, this device's own store).
    public static let machineSuite = "machine"
    /// The settings that describe this machine rather than the person:
    /// which shield it has, its hosts file, its hooks, how verbose its logs are.
    public static let machineKeys: Set<String> = ["shield", "shield.hostsFile", "hooks.dir", "log.level"]
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    /// The suite `key` is kept in.
    public static func suite(of key: String) -> String { machineKeys.contains(key) ? machineSuite : suite }

    public func value(for key: String) async throws -> String? {
        try store.value(String.self, forKey: key, in: Self.suite(of: key))
    }

    public func set(_ value: String, for key: String) async throws {
        try store.set(value, forKey: key, in: Self.suite(of: key))
    }

    public func unset(_ key: String) async throws {
        try store.removeValue(forKey: key, in: Self.suite(of: key))
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
        let shared = try store.values(of: suite).filter { !machineKeys.contains($0.key) }
        let machine = try store.values(of: machineSuite).filter { machineKeys.contains($0.key) }
        return try shared.merging(machine) { first, _ in first }.reduce(into: [:]) { result, entry in
            result[entry.key] = try JSONValueCoding.decode(String.self, from: entry.value, key: entry.key)
        }
    }
}
