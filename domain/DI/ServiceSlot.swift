import Synchronization

/// One container's holder for one registration: the factory and, for a
/// singleton, the instance once built.
@usableFromInline
protocol ServiceSlot: AnyObject, Sendable {
    /// Resolves without knowing the type statically (for `validate()`).
    func resolveErased(in container: Container, path: [ServiceKey]) throws(ResolutionError) -> Any
    /// The teardown to run at shutdown, if the singleton was built and has one.
    func pendingTeardown() -> (@Sendable () async -> Void)?
}

@usableFromInline
final class Slot<T: Sendable>: ServiceSlot {
    let registration: Registration<T>
    // Copied out of the registration: read on every resolve.
    @usableFromInline let key: ServiceKey
    @usableFromInline let lifetime: Lifetime
    @usableFromInline let instance = Mutex<T?>(nil)

    init(_ registration: Registration<T>) {
        self.registration = registration
        self.key = registration.key
        self.lifetime = registration.lifetime
    }

    /// The singleton if it has been built.
    @inlinable var built: T? { instance.withLock { $0 } }

    func store(_ value: T) { instance.withLock { $0 = value } }

    /// Runs the factory; errors other than resolution errors are wrapped.
    func build(_ resolver: Resolver) throws(ResolutionError) -> T {
        do {
            return try registration.factory(resolver)
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw .factoryFailed(key, path: resolver.path, underlying: error)
        }
    }

    @usableFromInline
    func resolveErased(in container: Container, path: [ServiceKey]) throws(ResolutionError) -> Any {
        if lifetime == .singleton, let value = built { return value }
        return try container.build(self, path: path)
    }

    @usableFromInline
    func pendingTeardown() -> (@Sendable () async -> Void)? {
        guard let teardown = registration.teardown, let value = built else { return nil }
        return { await teardown(value) }
    }
}
