import Domain
import Foundation
import Synchronization
import Testing

/// Services for the container tests: classes, so identity shows sharing.
final class Engine: Sendable {}
final class Car: Sendable {
    let engine: Engine
    init(engine: Engine) { self.engine = engine }
}
final class Garage: Sendable {
    let car: Car
    init(car: Car) { self.car = car }
}
protocol Greeter: Sendable { var greeting: String { get } }
struct English: Greeter { var greeting = "hello" }
struct French: Greeter { var greeting = "bonjour" }
struct BrokenFactory: Error, Equatable {}

@Suite("Container: resolving")
struct ContainerResolutionTests {
    @Test("a transient registration builds a new instance on every resolve")
    func transient() throws {
        let container = Container { $0.register(Engine.self) { _ in Engine() } }
        #expect(try container.resolve(Engine.self) !== container.resolve(Engine.self))
    }

    @Test("a singleton is built once and shared, also by its dependants")
    func singleton() throws {
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
        }
        let engine = try container.resolve(Engine.self)
        #expect(try container.resolve(Engine.self) === engine)
        #expect(try container.resolve(Car.self).engine === engine)
        #expect(try container.resolve(Car.self) !== container.resolve(Car.self))
    }

    @Test("protocol types resolve to the registered conformance, by name where named")
    func named() throws {
        let container = Container {
            $0.register((any Greeter).self) { _ in English() }
            $0.register((any Greeter).self, name: "fr") { _ in French() }
        }
        #expect(try container.resolve((any Greeter).self).greeting == "hello")
        #expect(try container.resolve((any Greeter).self, name: "fr").greeting == "bonjour")
    }

    @Test("registering a key again replaces its factory")
    func reRegistration() throws {
        var registry = Registry()
        registry.register((any Greeter).self) { _ in English() }
        registry.register((any Greeter).self) { _ in French() }
        #expect(try Container(registry).resolve((any Greeter).self).greeting == "bonjour")
        #expect(registry.keys.count == 1)
    }

    @Test("a missing registration names the type, who needed it, and what is registered")
    func notRegistered() throws {
        let container = Container {
            $0.register(Garage.self) { try Garage(car: $0.resolve()) }
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
        }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Garage.self) }
        guard case .notRegistered(let key, let path, let registered) = error else {
            Issue.record("expected notRegistered, got \(error)")
            return
        }
        #expect(key == ServiceKey(Engine.self))
        #expect(path == [ServiceKey(Garage.self), ServiceKey(Car.self)])
        #expect(registered == [ServiceKey(Garage.self), ServiceKey(Car.self)])
        #expect(error.description.contains("no registration for DomainTests.Engine"))
        #expect(error.description.contains("needed by DomainTests.Garage -> DomainTests.Car"))
        #expect(error.description.contains("registered: DomainTests.Garage, DomainTests.Car"))
    }

    @Test("a named registration does not stand in for the unnamed one")
    func namedIsNotUnnamed() throws {
        let container = Container { $0.register((any Greeter).self, name: "fr") { _ in French() } }
        #expect(throws: ResolutionError.self) { try container.resolve((any Greeter).self) }
    }

    @Test("a factory's error is wrapped with the service and path, its cause kept")
    func factoryFailed() throws {
        let container = Container {
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
            $0.register(Engine.self) { _ in throw BrokenFactory() }
        }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Car.self) }
        guard case .factoryFailed(let key, let path, let underlying) = error else {
            Issue.record("expected factoryFailed, got \(error)")
            return
        }
        #expect(key == ServiceKey(Engine.self))
        #expect(path == [ServiceKey(Car.self), ServiceKey(Engine.self)])
        #expect(underlying as? BrokenFactory == BrokenFactory())
        #expect(error.description.contains("building DomainTests.Engine failed"))
    }

    @Test("a factory that failed on damaged data says what the data error says, without the services' type names")
    func factoryFailedOnData() throws {
        let container = Container {
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
            $0.register(Engine.self) { _ in throw StoreError.typeMismatch(key: "notify", reason: "expected a string, found a number") }
        }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Car.self) }
        #expect(error.description == StoreError.typeMismatch(key: "notify", reason: "expected a string, found a number").description)
        #expect(error.key == ServiceKey(Engine.self))
    }

    @Test("a failed singleton build is retried on the next resolve, not cached")
    func failedSingletonIsNotCached() throws {
        let attempts = Mutex(0)
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in
                if attempts.withLock({ $0 += 1; return $0 }) == 1 { throw BrokenFactory() }
                return Engine()
            }
        }
        #expect(throws: ResolutionError.self) { try container.resolve(Engine.self) }
        let engine = try container.resolve(Engine.self)
        #expect(try container.resolve(Engine.self) === engine)
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("a container owns its singletons: they live while it does and are released with it, transients with their caller")
    func ownership() throws {
        weak var singleton: Engine?
        weak var transient: Car?
        var container: Container? = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
        }
        do {
            let car = try container!.resolve(Car.self)
            transient = car
            singleton = car.engine
        }
        #expect(transient == nil, "the container keeps no transient")
        #expect(singleton != nil, "the container keeps its singleton")
        #expect(try container!.resolve(Engine.self) === singleton)
        container = nil
        #expect(singleton == nil, "released with its container")
    }

    @Test("value-type singletons with non-trivial storage come back intact on every resolve")
    func valueSingleton() throws {
        let container = Container {
            $0.register([String].self, lifetime: .singleton) { _ in (0..<100).map { "item \($0)" } }
            $0.register((any Greeter).self, lifetime: .singleton) { _ in French() }
        }
        for _ in 0..<3 {
            #expect(try container.resolve([String].self) == (0..<100).map { "item \($0)" })
            #expect(try container.resolve((any Greeter).self).greeting == "bonjour")
        }
    }
}
