import Synchronization

/// One container's holder for one registration: the factory and, for a
/// singleton, the instance once built.
///
/// Not generic on purpose. A generic slot made the runtime instantiate type
/// metadata for every registered service (the slot class, its lock, the
/// optional inside) each time a process started: a sixth of `retime
/// status`. The built singleton instead lives in memory of its own, which
/// only the registration's type-aware closures and `Container.resolve<T>`
/// (whose key was made from the same T) ever read as a T.
@usableFromInline
final class Slot: Sendable {
    @usableFromInline let key: ServiceKey
    @usableFromInline let lifetime: Lifetime
    let registration: Registration
    /// The address of the built singleton; 0 until it is built. Written once,
    /// under the container's build lock.
    @usableFromInline let instance = Atomic<Int>(0)

    init(_ registration: Registration) {
        self.registration = registration
        self.key = registration.key
        self.lifetime = registration.lifetime
    }

    deinit {
        let address = instance.load(ordering: .acquiring)
        if address != 0 { registration.destroy(address) }
    }

    /// The singleton's memory if it has been built.
    @inlinable var built: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: instance.load(ordering: .acquiring))
    }

    /// Runs the factory into `memory`; errors other than resolution errors
    /// are wrapped with the key and path.
    func build(_ resolver: Resolver, into memory: UnsafeMutableRawPointer) throws(ResolutionError) {
        do {
            try registration.build(resolver, memory)
        } catch let error as ResolutionError {
            throw error
        } catch {
            throw .factoryFailed(key, path: resolver.path, underlying: error)
        }
    }

    /// Makes the built singleton visible to every thread.
    func publish(_ memory: UnsafeMutableRawPointer) {
        instance.store(Int(bitPattern: memory), ordering: .releasing)
    }

    /// The teardown to run at shutdown, if the singleton was built and has one.
    func pendingTeardown() -> (@Sendable () async -> Void)? {
        let address = instance.load(ordering: .acquiring)
        guard let teardown = registration.teardown, address != 0 else { return nil }
        return { await teardown(address) }
    }
}
