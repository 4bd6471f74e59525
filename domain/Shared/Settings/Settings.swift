import FoundationEssentials

/// The settings in force, as one typed value: what is stored, else the
/// default, decided here and nowhere else. Read once per command or daemon
/// pass (the roots register one per container), so the shield, hooks,
/// notifications and the log level of one command never disagree.
public struct Settings: Sendable, Equatable {
    /// What is stored, by key (`SettingKey.rawValue`); an unknown key is kept
    /// (a newer retime's) but never read.
    public let stored: [String: String]
    /// The data directory, for the defaults that live inside it.
    public let dataDirectory: String

    public init(stored: [String: String], dataDirectory: String) {
        self.stored = stored
        self.dataDirectory = dataDirectory
    }

    /// A key's value in force, as `config get` shows it.
    public subscript(key: SettingKey) -> String {
        stored[key.rawValue] ?? key.defaultValue(dataDirectory: dataDirectory)
    }

    /// Whether the user set `key` (otherwise its default applies).
    public func isSet(_ key: SettingKey) -> Bool { stored[key.rawValue] != nil }

    /// Every key in `SettingKey` order, with its value in force.
    public var effective: [EffectiveSetting] {
        SettingKey.allCases.map { EffectiveSetting(key: $0, value: self[$0], isDefault: !isSet($0)) }
    }

    /// Config key `shield`, as stored: a name this retime may not know,
    /// which whoever builds the shield refuses, saying so.
    public var shield: String { self[.shield] }
    /// The hosts file the `hosts` shield edits.
    public var hostsFile: String { self[.shieldHostsFile] }
    /// Where the event hooks live.
    public var hooksDirectory: String { self[.hooksDir] }
    /// The group `start` uses when none is named.
    public var defaultGroup: String { self[.defaultGroup] }
    /// Whether desktop notifications are shown.
    public var notifies: Bool { self[.notify] == "on" }
    /// How a strict session may end early; one that does not parse (a
    /// hand-edited file) counts as the default.
    public var unlock: UnlockMethod { (try? UnlockMethod(parsing: self[.unlock])) ?? .standard }
    /// How long idle or locked lasts before it is away time (`away.threshold`);
    /// one that does not parse (a hand-edited file) counts as the default.
    public var awayThreshold: TimeInterval {
        (try? SettingKey.awayThreshold.validate(self[.awayThreshold])).flatMap { UnlockMethod.seconds(of: $0.lowercased()) } ?? 300
    }
    /// Whether a cycle's work phases wait for the user (`cycle.waitForActivity`).
    public var cycleWaitsForActivity: Bool { self[.cycleWaitForActivity] == "on" }
    /// The configured log level; nil when unset (or unreadable), so each
    /// root applies its own default.
    public var logLevel: LogLevel? { stored[SettingKey.logLevel.rawValue].flatMap { LogLevel(rawValue: $0) } }
}
