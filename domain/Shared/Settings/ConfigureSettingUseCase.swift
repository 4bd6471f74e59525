import FoundationEssentials

/// Sets or unsets a configuration key, validating the key and the value.
public struct ConfigureSettingUseCase: Sendable {
    private let settings: any SettingsStore
    private let strict: any StrictSessionQuery
    private let override: any StrictOverride
    private let dataLock: any DataLock
    private let reading: ReadSettingsUseCase

    /// `reading` says what a key's default is, once it is unset.
    public init(settings: any SettingsStore, strict: any StrictSessionQuery, override: any StrictOverride,
                dataLock: any DataLock, reading: ReadSettingsUseCase) {
        self.settings = settings
        self.strict = strict
        self.override = override
        self.dataLock = dataLock
        self.reading = reading
    }

    /// The shield may not change while a strict session runs, unless the
    /// passcode says so. The unlock method may not change at all then: a
    /// session is not weakened from inside (cli.md, "Ending a strict session early").
    private func checkAllowed(_ key: SettingKey, passcode: Passcode?) async throws {
        if key == .unlock, let until = try await strict.strictUntil() {
            throw SettingError.lockedByStrictSession(key: key.rawValue, until: until)
        }
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

    /// Removes the key's value, so its default applies again; returns the
    /// setting now in force (that default).
    @discardableResult
    public func unset(_ key: String, passcode: Passcode? = nil) async throws -> EffectiveSetting {
        let key = try SettingKey(parsing: key)
        try await dataLock.exclusively {
            try await checkAllowed(key, passcode: passcode)
            try await settings.unset(key.rawValue)
        }
        return EffectiveSetting(key: key, value: reading.defaultValue(of: key), isDefault: true)
    }
}
