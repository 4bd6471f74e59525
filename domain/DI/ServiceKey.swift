/// Names a registration: a type, and optionally a name to tell apart several
/// registrations of the same type (`Logger` named `daemon`).
public struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    private let type: ObjectIdentifier
    /// The type's name, for messages; not part of the identity.
    public let typeName: String
    public let name: String?

    public init<T>(_ type: T.Type, name: String? = nil) {
        self.type = ObjectIdentifier(type)
        self.typeName = String(reflecting: type).replacingOccurrences(of: "Swift.", with: "")
        self.name = name
    }

    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        lhs.type == rhs.type && lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(name)
    }

    /// `Domain.Clock`, or `Domain.Logger("daemon")` for a named one.
    public var description: String {
        name.map { "\(typeName)(\"\($0)\")" } ?? typeName
    }
}

/// How long a resolved service lives.
public enum Lifetime: Sendable, Hashable {
    /// A new instance on every resolve.
    case transient
    /// One instance per container, built on first resolve, exactly once even
    /// when many tasks resolve it at the same moment.
    case singleton
}
