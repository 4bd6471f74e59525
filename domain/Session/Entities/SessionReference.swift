/// How a user names an ended session (cli.md, "History"): its id, a unique
/// prefix of at least 6 of its characters, or `@N`, the Nth most recent.
public enum SessionReference: Sendable, Hashable, CustomStringConvertible {
    case id(SessionID)
    case prefix(String)
    case recent(Int)

    public static let minimumPrefix = 6

    public init(parsing text: String) throws(SessionError) {
        let trimmed = text.trimmedSpaces
        if trimmed.hasPrefix("@") {
            guard let number = Int(trimmed.dropFirst()), number >= 1, trimmed.dropFirst().allSatisfy(\.isASCII) else {
                throw .invalidSessionReference(text)
            }
            self = .recent(number)
            return
        }
        if let id = SessionID(trimmed) {
            self = .id(id)
            return
        }
        let lowered = trimmed.lowercased()
        guard lowered.count >= Self.minimumPrefix, lowered.count < 36,
              lowered.allSatisfy({ $0 == "-" || $0.isHexDigit }) else { throw .invalidSessionReference(text) }
        self = .prefix(lowered)
    }

    public var description: String {
        switch self {
        case .id(let id): id.description
        case .prefix(let prefix): prefix
        case .recent(let number): "@\(number)"
        }
    }
}
