import FoundationEssentials

/// The keys of `retime config`, what each accepts, and its default.
public enum SettingKey: String, CaseIterable, Sendable {
    case shield
    case shieldHostsFile = "shield.hostsFile"
    case hooksDir = "hooks.dir"
    case defaultGroup
    case notify
    case logLevel = "log.level"
    case unlock
    case flowBreakRatio = "flow.breakRatio"
    case awayThreshold = "away.threshold"
    case cycleWaitForActivity = "cycle.waitForActivity"

    /// The bounds of `away.threshold`: shorter is a pause to read, longer
    /// is a session away.
    public static let awayThresholds: ClosedRange<TimeInterval> = 30...28_800

    /// Shields this build of retime can enforce.
    public static let shields = ["auto", "none", "hosts", "system"]

    public var summary: String {
        switch self {
        case .shield: "how blocks are enforced: auto (system where its service is installed, else none), none (record only), hosts (the hosts file), system (the root service)"
        case .shieldHostsFile: "the hosts file the hosts shield edits"
        case .hooksDir: "where the event hooks live"
        case .defaultGroup: "the group `start` uses when none is named"
        case .notify: "desktop notifications: on or off"
        case .logLevel: "log level: trace, debug, info, notice, warning, error, critical"
        case .unlock: "how a strict session may end early: passcode, delay:DURATION (a countdown), typing:N (type N random characters back), never"
        case .flowBreakRatio: "a --flow session's break as a share of the work before it, from 0.01 to 1"
        case .awayThreshold: "idle or locked longer than this is away time, not focused (30s to 8h, like 5m)"
        case .cycleWaitForActivity: "whether a cycle's work phase waits for you to come back (away at its break's end) before it begins: on or off"
        }
    }

    /// The value in force when the key is not set; `dataDirectory` fills
    /// the defaults that live inside it.
    public func defaultValue(dataDirectory: String) -> String {
        switch self {
        case .shield: "auto"
        case .shieldHostsFile: "/etc/hosts"
        case .hooksDir: dataDirectory + "/hooks"
        case .defaultGroup: "focus"
        case .notify: "on"
        case .logLevel: "warning"
        case .unlock: UnlockMethod.standard.description
        case .flowBreakRatio: "0.2"
        case .awayThreshold: "5m"
        case .cycleWaitForActivity: "off"
        }
    }

    /// Parses a key as the user typed it, suggesting the closest on a typo.
    public init(parsing text: String) throws(SettingError) {
        guard let key = SettingKey(rawValue: text) ?? Self.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw .unknownKey(text)
        }
        self = key
    }

    /// Checks a value and returns it in its stored form.
    public func validate(_ value: String) throws(SettingError) -> String {
        let trimmed = value.trimmedSpaces
        func oneOf(_ allowed: [String]) throws(SettingError) -> String {
            guard allowed.contains(trimmed.lowercased()) else {
                throw .invalidValue(key: rawValue, value: value, reason: "expected one of " + allowed.joined(separator: ", "))
            }
            return trimmed.lowercased()
        }
        switch self {
        case .shield: return try oneOf(Self.shields)
        case .notify, .cycleWaitForActivity: return try oneOf(["on", "off"])
        case .logLevel: return try oneOf(LogLevel.allCases.map(\.rawValue))
        case .unlock:
            do { return try UnlockMethod(parsing: trimmed).description } catch {
                throw .invalidValue(key: rawValue, value: value, reason: error.reason)
            }
        case .defaultGroup:
            // GroupName's rule (the kernel's NameRules), without depending on the Group context.
            switch NameRules.check(trimmed) {
            case .success(let name): return name
            case .failure(let problem): throw .invalidValue(key: rawValue, value: value, reason: "invalid group name '\(trimmed)': \(problem.description)")
            }
        case .flowBreakRatio:
            guard let ratio = Double(trimmed), ratio.isFinite, ratio >= 0.01, ratio <= 1 else {
                throw .invalidValue(key: rawValue, value: value, reason: "expected a number from 0.01 to 1")
            }
            return trimmed
        case .awayThreshold:
            guard let seconds = UnlockMethod.seconds(of: trimmed.lowercased()), Self.awayThresholds.contains(seconds) else {
                throw .invalidValue(key: rawValue, value: value, reason: "expected a duration from 30s to 8h, like 5m or 90s")
            }
            return UnlockMethod.compact(seconds.rounded())
        case .shieldHostsFile, .hooksDir:
            guard trimmed.hasPrefix("/"), !trimmed.contains("\u{0}") else {
                throw .invalidValue(key: rawValue, value: value, reason: "expected an absolute path")
            }
            return trimmed
        }
    }
}

/// What can go wrong with `retime config`.
public enum SettingError: RetimeError, Equatable {
    case unknownKey(String)
    case invalidValue(key: String, value: String, reason: String)
    case lockedByStrictSession(key: String, until: Date)

    public var code: String {
        switch self {
        case .unknownKey: "config.unknownKey"
        case .invalidValue: "config.invalidValue"
        case .lockedByStrictSession: "config.locked"
        }
    }

    public var kind: ErrorKind {
        if case .lockedByStrictSession = self { return .authorization }
        return .invalidInput
    }

    public var description: String { message(writingInstants: utcInstant) }

    public func message(writingInstants instant: (Date) -> String) -> String {
        switch self {
        case .unknownKey(let key):
            "unknown config key '\(key)'; keys: " + SettingKey.allCases.map(\.rawValue).joined(separator: ", ")
        case .invalidValue(let key, let value, let reason): "invalid value '\(value)' for \(key): \(reason)"
        case .lockedByStrictSession(let key, let until):
            "\(key) cannot change while a strict session runs (until \(instant(until)))"
        }
    }
}
