import Domain
import Testing

/// What a container built: the count a root's tests hold it to, and the
/// lifetime rule `validate()` enforces.
@Suite("Container: what it built")
struct ContainerBuildRecordTests {
    @Test("a singleton is counted once, a transient at every build, nothing for what was never asked for")
    func counts() throws {
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
            $0.register(Garage.self) { try Garage(car: $0.resolve()) }
            $0.register((any Greeter).self) { _ in English() }
        }
        #expect(container.built.count == 0)
        _ = try container.resolve(Car.self)
        _ = try container.resolve(Car.self)
        #expect(container.built.count == 3)   // Engine once, Car twice
        #expect(container.built.services.map(\.typeName) == ["DomainTests.Engine", "DomainTests.Car"])
        _ = try container.resolve(Engine.self)
        #expect(container.built.count == 3)   // a built singleton is not built again
    }

    @Test("validate() reports a singleton whose factory captured a transient, and passes one that resolves singletons")
    func captives() throws {
        let captive = Container {
            $0.register(Engine.self) { _ in Engine() }
            $0.register(Car.self, lifetime: .singleton) { try Car(engine: $0.resolve()) }
        }
        let error = try #require(throws: ContainerValidationError.self) { try captive.validate() }
        #expect(error.problems.isEmpty)
        #expect(error.captives.map(\.description) == ["singleton DomainTests.Car captures transient DomainTests.Engine"])
        #expect(error.description.contains("1 problem(s)"))

        let sound = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
            $0.register(Car.self, lifetime: .singleton) { try Car(engine: $0.resolve()) }
            $0.register(Garage.self) { try Garage(car: $0.resolve()) }
        }
        try sound.validate()
    }
}
