/// What a container has built so far: how many times a factory ran, which
/// services, and any singleton that captured a transient. A root's test
/// reads it to hold the root to building only what its entry point uses
/// (docs/performance.md, "Container: what each root builds").
public struct BuildRecord: Sendable, Equatable {
    /// Factory runs: a singleton counts once, a transient at every build.
    public internal(set) var count = 0
    /// Every service built at least once, in the order of its first build.
    public internal(set) var services: [ServiceKey] = []
    /// Singletons whose factory resolved a transient (`validate()` reports them).
    public internal(set) var captives: [Captive] = []

    public init() {}

    /// Notes one build of `key`, needed by `parent` (nil: resolved by the root).
    mutating func note(_ key: ServiceKey, lifetime: Lifetime, parent: (key: ServiceKey, lifetime: Lifetime)?) {
        count += 1
        if !services.contains(key) { services.append(key) }
        if let parent, parent.lifetime == .singleton, lifetime == .transient {
            let captive = Captive(singleton: parent.key, transient: key)
            if !captives.contains(captive) { captives.append(captive) }
        }
    }
}

/// A singleton that resolved a transient in its factory: it keeps the one
/// it got for the container's life, so what was meant to be built afresh
/// at each resolve (a use case per daemon pass) is not.
public struct Captive: Sendable, Hashable, CustomStringConvertible {
    public let singleton: ServiceKey
    public let transient: ServiceKey

    public var description: String { "singleton \(singleton) captures transient \(transient)" }
}
