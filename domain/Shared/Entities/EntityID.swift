import FoundationEssentials

/// The identity of an entity of kind `Entity`, typed so that a group's id can
/// never be passed where a session's is expected. Encodes as a bare
/// lower-case UUID string (any case is read).
public struct EntityID<Entity>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID = UUID()) { self.rawValue = rawValue }

    /// Parses the text form (any case); nil if it is not a UUID.
    public init?(_ text: String) {
        guard let uuid = UUIDText.parse(text) else { return nil }
        rawValue = uuid
    }

    // The text, parsed here: decoding `UUID.self` goes through its generic
    // Decodable path, 0.15 M instructions on first use in every process.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUIDText.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a UUID")
        }
        rawValue = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Lower-case UUID text, as written in JSON and shown to users.
    public var description: String { UUIDText.lowercase(rawValue) }
}
