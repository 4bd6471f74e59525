import FoundationEssentials
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
    @usableFromInline let slots: [ServiceKey: Slot]
    /// Held while a singleton is built; recursive because factories resolve.
    private let buildLock = RecursiveLock()
    private let tornDown = Mutex(false)
    private let record = Mutex(BuildRecord())

    public init(_ registry: Registry) {
        self.registry = registry
        self.slots = registry.entries.mapValues { Slot($0) }
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
        // The key was made from T, so the slot's memory holds a T.
        if slot.lifetime == .singleton, let memory = slot.built { return memory.assumingMemoryBound(to: T.self).pointee }
        return try build(slot, as: T.self, path: path)
    }

    @usableFromInline
    func notRegistered(_ key: ServiceKey, path: [ServiceKey]) -> ResolutionError {
        .notRegistered(key, path: path, registered: registry.keys)
    }

    @usableFromInline
    func build<T: Sendable>(_ slot: Slot, as type: T.Type, path: [ServiceKey]) throws(ResolutionError) -> T {
        let key = slot.key
        guard !path.contains(key) else { throw .cycle(path: path + [key]) }
        let resolver = Resolver(container: self, path: path + [key])
        guard slot.lifetime == .singleton else {
            // Heap rather than withUnsafeTemporaryAllocation, whose typed
            // throws instantiate Result metadata for every T at run time.
            let memory = UnsafeMutablePointer<T>.allocate(capacity: 1)
            defer { memory.deallocate() }
            try slot.build(resolver, into: memory)
            noteBuilt(slot, path: path)
            return memory.move()
        }

        buildLock.lock()
        defer { buildLock.unlock() }
        if let memory = slot.built { return memory.assumingMemoryBound(to: T.self).pointee }
        let memory = UnsafeMutablePointer<T>.allocate(capacity: 1)
        do {
            try slot.build(resolver, into: memory)
        } catch {
            memory.deallocate()
            throw error
        }
        slot.publish(memory)
        noteBuilt(slot, path: path)
        return memory.pointee
    }

    /// Counts a factory run (only builds, never the fast path of a built
    /// singleton), and whether a singleton is the one that needed it.
    func noteBuilt(_ slot: Slot, path: [ServiceKey]) {
        let parent = path.last.flatMap { key in slots[key].map { (key: key, lifetime: $0.lifetime) } }
        record.withLock { $0.note(slot.key, lifetime: slot.lifetime, parent: parent) }
    }

    /// What this container has built so far (a root's tests hold it to
    /// what its entry point uses).
    public var built: BuildRecord { record.withLock { $0 } }

    /// Resolves every registration and reports all problems together, one per
    /// faulty service, so a misconfigured root is fixed in one pass: a
    /// missing registration, a cycle, a failing factory, and a singleton
    /// whose factory captured a transient (a lifetime mismatch).
    public func validate() throws(ContainerValidationError) {
        var problems: [ResolutionError] = []
        var seen = Set<String>()
        for key in registry.keys {
            do {
                try registry.entries[key]!.check(self, [])
            } catch {
                let identity: String = switch error {
                case .cycle(let path): Set(path.map(\.description)).sorted().joined(separator: ",")
                default: "\(error.key)"
                }
                if seen.insert(identity).inserted { problems.append(error) }
            }
        }
        let captives = built.captives
        guard problems.isEmpty, captives.isEmpty else { throw ContainerValidationError(problems: problems, captives: captives) }
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
