import Foundation
import Synchronization

/// The registry-style dependency container that both composition roots (the
/// one-shot CLI and the daemon) resolve their services from.
///
/// - Safe from any thread or task. A singleton is built exactly once: builds
///   are serialised by one recursive lock, so concurrent first resolves wait
///   for the one build, and a factory may resolve other services freely.
/// - Errors are typed and complete: a missing registration names the type and
///   lists what is registered; a cycle gives its full path; a failing factory
///   keeps its cause.
/// - `validate()` resolves the whole graph and reports every problem at once.
/// - `overriding(_:)` gives a child container with some registrations
///   replaced and its own singletons; the parent is untouched.
public final class Container: Sendable {
    private let registry: Registry
    @usableFromInline let slots: [ServiceKey: any ServiceSlot]
    /// Held while a singleton is built; recursive because factories resolve.
    private let buildLock = NSRecursiveLock()
    private let tornDown = Mutex(false)

    public init(_ registry: Registry) {
        self.registry = registry
        self.slots = registry.entries.mapValues { $0.makeSlot() }
    }

    /// Builds a registry with `configure` and a container over it.
    public convenience init(_ configure: (inout Registry) -> Void) {
        var registry = Registry()
        configure(&registry)
        self.init(registry)
    }

    // Inlinable so that callers get a specialised fast path for built
    // singletons, free of runtime generic-metadata look-ups.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type = T.self, name: String? = nil) throws(ResolutionError) -> T {
        try resolve(ServiceKey(type, name: name), path: [])
    }

    @inlinable
    func resolve<T: Sendable>(_ key: ServiceKey, path: [ServiceKey]) throws(ResolutionError) -> T {
        guard let slot = slots[key] else { throw notRegistered(key, path: path) }
        // The key was made from T, so the slot holds a T.
        let typed = unsafeDowncast(slot, to: Slot<T>.self)
        if typed.lifetime == .singleton, let value = typed.built { return value }
        return try build(typed, path: path)
    }

    @usableFromInline
    func notRegistered(_ key: ServiceKey, path: [ServiceKey]) -> ResolutionError {
        .notRegistered(key, path: path, registered: registry.keys)
    }

    @usableFromInline
    func build<T: Sendable>(_ slot: Slot<T>, path: [ServiceKey]) throws(ResolutionError) -> T {
        let key = slot.key
        guard !path.contains(key) else { throw .cycle(path: path + [key]) }
        let resolver = Resolver(container: self, path: path + [key])
        guard slot.lifetime == .singleton else { return try slot.build(resolver) }

        buildLock.lock()
        defer { buildLock.unlock() }
        if let value = slot.built { return value }
        let value = try slot.build(resolver)
        slot.store(value)
        return value
    }

    /// Resolves every registration and reports all problems together, one per
    /// faulty service, so a misconfigured root is fixed in one pass.
    public func validate() throws(ContainerValidationError) {
        var problems: [ResolutionError] = []
        var seen = Set<String>()
        for key in registry.keys {
            do {
                _ = try slots[key]!.resolveErased(in: self, path: [])
            } catch {
                let identity: String = switch error {
                case .cycle(let path): Set(path.map(\.description)).sorted().joined(separator: ",")
                default: "\(error.key)"
                }
                if seen.insert(identity).inserted { problems.append(error) }
            }
        }
        guard problems.isEmpty else { throw ContainerValidationError(problems: problems) }
    }

    /// A child container: this one's registrations with `changes` applied, and
    /// singletons of its own. The parent, and anything it has built, is untouched.
    public func overriding(_ changes: (inout Registry) -> Void) -> Container {
        var child = registry
        changes(&child)
        return Container(child)
    }

    /// The registrations this container resolves from.
    public var registrations: Registry { registry }

    /// Runs the teardown hooks of the singletons built so far, in reverse
    /// registration order, once; later calls do nothing.
    public func teardown() async {
        let first = tornDown.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        for key in registry.keys.reversed() {
            if let hook = slots[key]?.pendingTeardown() { await hook() }
        }
    }
}
