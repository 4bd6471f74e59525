import FoundationEssentials
import RetimeShared

/// A validated group name (`NameRules`: 1-64 characters, no control
/// characters, no `/`); two names match case-insensitively.
public struct GroupName: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name as the user wrote it (surrounding whitespace removed).
    public let rawValue: String

    /// Parses and validates a name typed by a user (`NameRules`).
    public init(_ text: String) throws(GroupError) {
        switch NameRules.check(text) {
        case .success(let name): rawValue = name
        case .failure(let problem): throw .invalidName(text, reason: problem.description)
        }
    }

    /// The form in which names are compared: case-folded, canonically composed.
    public var comparisonKey: String { NameRules.comparisonKey(rawValue) }

    /// The comparison form of any text, for looking a name up.
    public static func comparisonKey(_ text: String) -> String { NameRules.comparisonKey(text) }

    public static func == (lhs: GroupName, rhs: GroupName) -> Bool { lhs.comparisonKey == rhs.comparisonKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(comparisonKey) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
