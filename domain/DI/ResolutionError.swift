import RetimeShared

/// Why a service could not be resolved. Every case carries the resolution
/// path, so a message tells which service needed the one that failed.
public enum ResolutionError: Error, CustomStringConvertible {
    /// Nothing is registered under `key`; `registered` lists what is.
    case notRegistered(ServiceKey, path: [ServiceKey], registered: [ServiceKey])
    /// Resolving the last key of `path` would need itself: `A -> B -> A`.
    case cycle(path: [ServiceKey])
    /// The factory of `key` threw `underlying`.
    case factoryFailed(ServiceKey, path: [ServiceKey], underlying: any Error)

    /// The service at fault: the missing one, the one that closes a cycle,
    /// or the one whose factory failed.
    public var key: ServiceKey {
        switch self {
        case .notRegistered(let key, _, _), .factoryFailed(let key, _, _): key
        case .cycle(let path): path.last!
        }
    }

    public var description: String {
        switch self {
        case .notRegistered(let key, let path, let registered):
            let needed = path.isEmpty ? "" : " (needed by \(Self.render(path)))"
            let known = registered.isEmpty ? "nothing" : registered.map(\.description).joined(separator: ", ")
            return "no registration for \(key)\(needed); registered: \(known)"
        case .cycle(let path):
            return "dependency cycle: \(Self.render(path))"
        case .factoryFailed(_, _, let underlying as any RetimeError):
            // Data a factory read is damaged (a setting of the wrong shape):
            // that is the whole story for whoever reads it, and the
            // service's path names Swift types; `key` and `path` keep it.
            return underlying.description
        case .factoryFailed(let key, let path, let underlying):
            let via = path.count > 1 ? " (resolving \(Self.render(path)))" : ""
            return "building \(key) failed\(via): \(underlying)"
        }
    }

    static func render(_ path: [ServiceKey]) -> String {
        path.map(\.description).joined(separator: " -> ")
    }
}

/// Every problem `Container.validate()` found, one per faulty service.
public struct ContainerValidationError: Error, CustomStringConvertible {
    public let problems: [ResolutionError]
    /// Singletons that captured a transient: lifetimes that do not agree.
    public let captives: [Captive]

    public init(problems: [ResolutionError], captives: [Captive] = []) {
        self.problems = problems
        self.captives = captives
    }

    public var description: String {
        "the service container has \(problems.count + captives.count) problem(s):\n"
            + (problems.map { "  - \($0)" } + captives.map { "  - \($0)" }).joined(separator: "\n")
    }
}
