import FoundationEssentials
import RetimeShared

/// Identifies a `Session`.
public typealias SessionID = EntityID<Session>

/// How a session ended, or that it has not.
public enum SessionOutcome: String, Sendable, Codable, Hashable {
    case active
    /// Ran to its planned end.
    case completed
    /// Ended early by the user (or an open-ended session ended by the user).
    case stopped
}

/// Who started a session: the user, or a schedule's interval.
public enum SessionOrigin: Hashable, Sendable, CustomStringConvertible {
    case manual
    case schedule(String)
    /// Brought in by `retime import` from another tool (`watson`, `timewarrior`, `retime`).
    case imported(String)

    private static let schedulePrefix = "schedule:"
    private static let importPrefix = "import:"

    /// Reads the text form, `manual`, `schedule:NAME` or `import:TOOL`.
    public init?(_ text: String) {
        if text == "manual" {
            self = .manual
        } else if text.hasPrefix(Self.schedulePrefix) {
            self = .schedule(String(text.dropFirst(Self.schedulePrefix.count)))
        } else if text.hasPrefix(Self.importPrefix) {
            self = .imported(String(text.dropFirst(Self.importPrefix.count)))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .manual: "manual"
        case .schedule(let name): Self.schedulePrefix + name
        case .imported(let tool): Self.importPrefix + tool
        }
    }
}

extension SessionOrigin: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let origin = SessionOrigin(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown origin '\(text)'"))
        }
        self = origin
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A break in a session: the block is lifted from `start` until `end`.
public struct Break: Hashable, Sendable, Codable {
    public var start: Date
    /// Nil while the break goes on.
    public var end: Date?

    public init(start: Date, end: Date? = nil) {
        self.start = start
        self.end = end
    }
}
