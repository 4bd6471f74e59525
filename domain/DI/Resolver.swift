/// What a factory receives to resolve its own dependencies. It carries the
/// path of the resolution in progress, which is how cycles are caught in
/// every build, not only in debug ones.
public struct Resolver: Sendable {
    let container: Container
    /// The services being resolved, outermost first.
    public let path: [ServiceKey]

    public func resolve<T: Sendable>(_ type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T {
        try container.resolve(ServiceKey(type, name: name), path: path)
    }
}
