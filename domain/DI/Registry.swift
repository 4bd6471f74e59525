/// The registrations of a container, as a value. Build one, copy it, change
/// the copy: the original is untouched, which is what makes overrides for
/// tests safe to run in parallel.
public struct Registry: Sendable {
    private(set) var entries: [ServiceKey: Registration] = [:]
    /// Keys in the order of their first registration; teardown runs in reverse.
    private(set) var order: [ServiceKey] = []

    public init() {}

    /// Registers how to build a `T`. Registering the same type and name again
    /// replaces the factory and keeps the original position in the order.
    public mutating func register<T: Sendable>(
        _ type: T.Type = T.self, name: String? = nil, lifetime: Lifetime = .transient,
        teardown: (@Sendable (T) async -> Void)? = nil,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) {
        let key = ServiceKey(type, name: name)
        if entries[key] == nil { order.append(key) }
        entries[key] = Registration(key: key, lifetime: lifetime, factory: factory, teardown: teardown)
    }

    /// Registers an already built value as a singleton.
    public mutating func register<T: Sendable>(_ type: T.Type = T.self, name: String? = nil, value: T) {
        register(type, name: name, lifetime: .singleton) { _ in value }
    }

    /// Every registered key, in registration order.
    public var keys: [ServiceKey] { order }

    public func contains<T>(_ type: T.Type, name: String? = nil) -> Bool {
        entries[ServiceKey(type, name: name)] != nil
    }
}

/// One registration with its service type erased into closures made where
/// the type was known, so a registry holds many without generic metadata
/// for each. The memory they take is always a `T`'s (see `Slot`).
struct Registration: Sendable {
    let key: ServiceKey
    let lifetime: Lifetime
    /// Runs the factory and initialises the memory with its result.
    let build: @Sendable (Resolver, UnsafeMutableRawPointer) throws -> Void
    /// Deinitialises and frees a built singleton's memory (by address).
    let destroy: @Sendable (Int) -> Void
    /// The teardown hook, given the built singleton's address.
    let teardown: (@Sendable (Int) async -> Void)?
    /// Resolves the service as a `T` and drops it (for `validate()`).
    let check: @Sendable (Container, [ServiceKey]) throws(ResolutionError) -> Void

    init<T: Sendable>(key: ServiceKey, lifetime: Lifetime, factory: @escaping @Sendable (Resolver) throws -> T,
                      teardown: (@Sendable (T) async -> Void)?) {
        self.key = key
        self.lifetime = lifetime
        build = { resolver, memory in memory.initializeMemory(as: T.self, to: try factory(resolver)) }
        destroy = { address in
            let memory = UnsafeMutablePointer<T>(bitPattern: address)!
            memory.deinitialize(count: 1)
            memory.deallocate()
        }
        if let teardown {
            self.teardown = { address in await teardown(UnsafeMutablePointer<T>(bitPattern: address)!.pointee) }
        } else {
            self.teardown = nil
        }
        check = { container, path throws(ResolutionError) in _ = try container.resolve(key, path: path) as T }
    }
}
