/// The registrations of a container, as a value. Build one, copy it, change
/// the copy: the original is untouched, which is what makes overrides for
/// tests safe to run in parallel.
public struct Registry: Sendable {
    private(set) var entries: [ServiceKey: any AnyRegistration] = [:]
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

/// A registration whose service type is erased, so a registry can hold many.
protocol AnyRegistration: Sendable {
    var key: ServiceKey { get }
    /// A fresh holder for one container's instance of this service.
    func makeSlot() -> any ServiceSlot
}

struct Registration<T: Sendable>: AnyRegistration {
    let key: ServiceKey
    let lifetime: Lifetime
    let factory: @Sendable (Resolver) throws -> T
    let teardown: (@Sendable (T) async -> Void)?

    func makeSlot() -> any ServiceSlot { Slot(self) }
}
