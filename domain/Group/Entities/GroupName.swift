import Foundation

/// A validated group name: 1-64 characters, no control characters, no `/`.
/// Two names are the same group name when they match case-insensitively.
public struct GroupName: Hashable, Sendable, Codable, CustomStringConvertible {
    public static let maxLength = 64

    /// The name as the user wrote it (surrounding whitespace removed).
    public let rawValue: String

    /// Parses and validates a name typed by a user.
    public init(_ text: String) throws(GroupError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidName(text, reason: "it is empty") }
        guard trimmed.count <= Self.maxLength else {
            throw .invalidName(text, reason: "it is longer than \(Self.maxLength) characters")
        }
        guard !trimmed.containsControlCharacter else {
            throw .invalidName(text, reason: "it contains a control character")
        }
        guard !trimmed.contains("/") else { throw .invalidName(text, reason: "it contains '/'") }
        rawValue = trimmed
    }

    /// The form in which names are compared: case-folded, canonically composed.
    public var comparisonKey: String { Self.comparisonKey(rawValue) }

    /// The comparison form of any text, for looking a name up.
    public static func comparisonKey(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

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
