import Domain
import Synchronization

/// A dependency of a command, declared once: `@Resolved var stop:
/// StopSessionUseCase` is filled from the root's container while
/// `ServiceSource.build` makes the command's `CommandServices`
/// (`@ResolvedEach` for a type registered once per name).
///
/// A property wrapper's initializer cannot throw into the enclosing one, so
/// a dependency that does not resolve is recorded in the build under way
/// and `build` throws it: a `Services` value with an unresolved dependency
/// is never handed out, which is why the getter cannot fail.
@propertyWrapper
struct Resolved<Value: Sendable>: Sendable, ResolvedDependency {
    private let value: Value?

    init() { value = ServiceSource.resolving { try $0.resolve(Value.self) } }

    var wrappedValue: Value {
        guard let value else { ServiceSource.unbuilt() }
        return value
    }

    var dependency: Any { wrappedValue }
}

/// One registration per case of `Key`, named by its raw value: the service
/// managers by kind, the history importers by tool.
@propertyWrapper
struct ResolvedEach<Key: CaseIterable & Hashable & RawRepresentable & Sendable, Value: Sendable>: Sendable where Key.RawValue == String {
    private let value: [Key: Value]?

    init() {
        value = ServiceSource.resolving { container in
            try Dictionary(uniqueKeysWithValues: Key.allCases.map { ($0, try container.resolve(Value.self, name: $0.rawValue)) })
        }
    }

    var wrappedValue: [Key: Value] {
        guard let value else { ServiceSource.unbuilt() }
        return value
    }
}

/// What a declared dependency resolved to: how `CompositionRootTests`
/// looks inside a command's services.
protocol ResolvedDependency {
    var dependency: Any { get }
}

/// A command's services: `@Resolved` properties, filled from the root's
/// container when `ServiceSource.build` makes them.
protocol CommandServices: Sendable {
    init()
}

/// For commands that touch no data (help, completion, version).
struct NoServices: CommandServices {}

/// Where a command's services come from: the root's container, which builds
/// a service the first time one is asked for.
struct ServiceSource: Sendable {
    let container: Container

    /// The build under way in this task: its container, and the first
    /// dependency that did not resolve.
    private final class Build: Sendable {
        let container: Container
        let failure = Mutex<(any Error)?>(nil)
        init(_ container: Container) { self.container = container }
    }

    @TaskLocal private static var current: Build?

    /// `Services` with every declared dependency resolved; throws the first
    /// that did not.
    func build<Services: CommandServices>(_ type: Services.Type) throws -> Services {
        let build = Build(container)
        let services = Self.$current.withValue(build) { Services() }
        if let failure = build.failure.withLock({ $0 }) { throw failure }
        return services
    }

    /// What `resolve` returns from the build under way; nil, with the
    /// failure recorded, when it does not resolve.
    fileprivate static func resolving<T>(_ resolve: (Container) throws -> T) -> T? {
        guard let build = current else { unbuilt() }
        do { return try resolve(build.container) } catch {
            build.failure.withLock { if $0 == nil { $0 = error } }
            return nil
        }
    }

    /// A command's services made other than by `build`: a programming
    /// error, never a user's.
    fileprivate static func unbuilt() -> Never {
        preconditionFailure("a command's services are made only by ServiceSource.build, which throws what did not resolve")
    }
}
