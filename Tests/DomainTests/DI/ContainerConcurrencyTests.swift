import Dispatch
import Domain
import Foundation
import Synchronization
import Testing

@Suite("Container: concurrency and teardown")
struct ContainerConcurrencyTests {
    @Test("1,000 concurrent first resolves of a singleton build exactly one instance")
    func singletonOnce() async throws {
        let builds = Atomic(0)
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in
                builds.add(1, ordering: .relaxed)
                usleep(2_000) // widen the window in which a second build could start
                return Engine()
            }
        }
        let engines = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { tasks in
            for _ in 0..<1_000 { tasks.addTask { ObjectIdentifier(try container.resolve(Engine.self)) } }
            return try await tasks.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(builds.load(ordering: .relaxed) == 1)
        #expect(engines.count == 1)
    }

    @Test("threads resolving singletons that resolve singletons do not deadlock")
    func nestedSingletonsAcrossThreads() throws {
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in usleep(500); return Engine() }
            $0.register(Car.self, lifetime: .singleton) { usleep(500); return try Car(engine: $0.resolve()) }
            $0.register(Garage.self, lifetime: .singleton) { try Garage(car: $0.resolve()) }
        }
        let seen = Mutex<Set<ObjectIdentifier>>([])
        DispatchQueue.concurrentPerform(iterations: 300) { index in
            let engine: Engine? = switch index % 3 {
            case 0: try? container.resolve(Garage.self).car.engine
            case 1: try? container.resolve(Car.self).engine
            default: try? container.resolve(Engine.self)
            }
            if let engine { seen.withLock { _ = $0.insert(ObjectIdentifier(engine)) } }
        }
        #expect(seen.withLock { $0.count } == 1)
    }

    @Test("teardown runs the hooks of built singletons in reverse registration order, once")
    func teardownOrder() async throws {
        let log = Mutex<[String]>([])
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton, teardown: { _ in log.withLock { $0.append("engine") } }) { _ in Engine() }
            $0.register(Car.self, lifetime: .singleton, teardown: { _ in log.withLock { $0.append("car") } }) {
                try Car(engine: $0.resolve())
            }
            $0.register(Nest.self, lifetime: .singleton, teardown: { _ in log.withLock { $0.append("never built") } }) { _ in Nest() }
            $0.register(Garage.self, lifetime: .singleton, teardown: { _ in log.withLock { $0.append("garage") } }) {
                try Garage(car: $0.resolve())
            }
        }
        _ = try container.resolve(Garage.self)
        await container.teardown()
        await container.teardown()
        #expect(log.withLock { $0 } == ["garage", "car", "engine"])
    }
}
