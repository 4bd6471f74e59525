/// A setting as it is in force: the value stored, else its default.
public struct EffectiveSetting: Sendable, Equatable {
    public var key: SettingKey
    public var value: String
    /// Whether no value is stored, so the default applies.
    public var isDefault: Bool

    public init(key: SettingKey, value: String, isDefault: Bool) {
        self.key = key
        self.value = value
        self.isDefault = isDefault
    }
}

/// Reads the settings in force: each key's stored value, else its default.
/// Some defaults name places in the data directory (the hooks folder), so
/// the root gives the directory's path; nothing here touches it.
public struct ReadSettingsUseCase: Sendable {
    private let settings: any SettingsStore
    private let dataDirectory: String

    public init(settings: any SettingsStore, dataDirectory: String) {
        self.settings = settings
        self.dataDirectory = dataDirectory
    }

    /// Every key, in `SettingKey` order.
    public func all() async throws -> [EffectiveSetting] {
        Settings(stored: try await settings.all(), dataDirectory: dataDirectory).effective
    }

    public func value(of key: SettingKey) async throws -> EffectiveSetting {
        let stored = try await settings.value(for: key.rawValue).map { [key.rawValue: $0] } ?? [:]
        return Settings(stored: stored, dataDirectory: dataDirectory).effective.first { $0.key == key }!
    }

    public func defaultValue(of key: SettingKey) -> String {
        key.defaultValue(dataDirectory: dataDirectory)
    }
}
