/// Names a registration: a type, and optionally a name to tell apart several
/// registrations of the same type (`Logger` named `daemon`).
public struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let type: any Any.Type
    public let name: String?

    @inlinable
    public init<T>(_ type: T.Type, name: String? = nil) {
        self.type = type
        self.name = name
    }

    /// The type's name, for messages. Computed on demand: resolving is hot.
    public var typeName: String {
        String(reflecting: type).replacing("Swift.", with: "")
    }

    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        ObjectIdentifier(lhs.type) == ObjectIdentifier(rhs.type) && lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
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
