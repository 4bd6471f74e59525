/// The user's configuration (`retime config`): text values by key. Keys not
/// set have no stored value; their defaults are the caller's to apply.
///
/// The contract every adapter keeps is `SettingsStoreContract`.
public protocol SettingsStore: Sendable {
    func value(for key: String) async throws -> String?
    func set(_ value: String, for key: String) async throws
    func unset(_ key: String) async throws
    /// Every key set, with its value.
    func all() async throws -> [String: String]
}
