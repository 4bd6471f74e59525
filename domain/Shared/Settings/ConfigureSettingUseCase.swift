import Foundation

/// Sets or unsets a configuration key, validating the key and the value.
public struct ConfigureSettingUseCase: Sendable {
    private let settings: any SettingsStore
    private let strict: any StrictSessionQuery
    private let override: any StrictOverride
    private let dataLock: any DataLock

    public init(settings: any SettingsStore, strict: any StrictSessionQuery, override: any StrictOverride,
                dataLock: any DataLock) {
        self.settings = settings
        self.strict = strict
        self.override = override
        self.dataLock = dataLock
    }

    /// The shield may not change while a strict session runs, unless the
    /// passcode says so.
    private func checkAllowed(_ key: SettingKey, passcode: Passcode?) async throws {
        guard key == .shield || key == .shieldHostsFile, let until = try await strict.strictUntil() else { return }
        try await override.authorize("config." + key.rawValue, passcode: passcode,
                                     otherwise: SettingError.lockedByStrictSession(key: key.rawValue, until: until))
    }

    /// Stores `value` for `key`; returns the key and the value as stored.
    @discardableResult
    public func set(_ key: String, to value: String, passcode: Passcode? = nil) async throws -> (SettingKey, String) {
        let key = try SettingKey(parsing: key)
        let stored = try key.validate(value)
        try await dataLock.exclusively {
            try await checkAllowed(key, passcode: passcode)
            try await settings.set(stored, for: key.rawValue)
        }
        return (key, stored)
    }

    /// Removes the key's value, so its default applies again.
    @discardableResult
    public func unset(_ key: String, passcode: Passcode? = nil) async throws -> SettingKey {
        let key = try SettingKey(parsing: key)
        try await dataLock.exclusively {
            try await checkAllowed(key, passcode: passcode)
            try await settings.unset(key.rawValue)
        }
        return key
    }
}
