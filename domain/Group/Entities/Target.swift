/// Something a group blocks: a domain (and all its subdomains) or an app.
public enum Target: Hashable, Sendable, CustomStringConvertible {
    case domain(DomainName)
    /// An application by name, written `app:NAME`.
    case app(String)

    public static let appPrefix = "app:"
    public static let maxAppNameLength = 64

    /// Parses a target as a user writes it: `example.com` or `app:slack`.
    public init(parsing text: String) throws(GroupError) {
        // A domain already in canonical form (as every stored target is)
        // skips the trimming and the prefix test, each costlier than the check.
        if let name = DomainName.ifCanonical(text) {
            self = .domain(name)
            return
        }
        let trimmed = text.trimmedSpaces
        guard trimmed.lowercased().hasPrefix(Self.appPrefix) else {
            self = .domain(try DomainName(text))
            return
        }
        let name = trimmed.dropFirst(Self.appPrefix.count).trimmedSpaces
        guard !name.isEmpty else { throw .invalidTarget(text, reason: "the app name is empty") }
        guard name.count <= Self.maxAppNameLength else {
            throw .invalidTarget(text, reason: "the app name is longer than \(Self.maxAppNameLength) characters")
        }
        guard !name.containsControlCharacter else {
            throw .invalidTarget(text, reason: "the app name contains a control character")
        }
        self = .app(name)
    }

    /// Whether blocking this target blocks `other` too (a domain covers its subdomains).
    public func covers(_ other: Target) -> Bool {
        switch (self, other) {
        case (.domain(let mine), .domain(let theirs)): mine.covers(theirs)
        case (.app(let mine), .app(let theirs)): mine == theirs
        default: false
        }
    }

    /// The form people read: a domain's labels in Unicode (`bücher.de`,
    /// which hosts files and JSON hold as `xn--bcher-kva.de`).
    public var displayName: String {
        switch self {
        case .domain(let name): name.unicode
        case .app: description
        }
    }

    /// The canonical text form, which `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .domain(let name): name.ascii
        case .app(let name): Self.appPrefix + name
        }
    }
}

extension Target: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try Target(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
