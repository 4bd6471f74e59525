import Domain
import Testing

@Suite("Container: validate()")
struct ContainerValidationTests {
    @Test("a sound graph validates, and its singletons are built by it")
    func soundGraph() throws {
        let container = Container {
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
            $0.register(Car.self) { try Car(engine: $0.resolve()) }
            $0.register(Garage.self) { try Garage(car: $0.resolve()) }
        }
        try container.validate()
        #expect(try container.resolve(Garage.self).car.engine === container.resolve(Engine.self))
    }

    @Test("every problem is reported at once, each faulty service once")
    func everyProblem() throws {
        let container = Container {
            $0.register(Garage.self) { try Garage(car: $0.resolve()) }          // needs Car: missing
            $0.register(Nest.self) { _ = try $0.resolve(Car.self); return Nest() } // needs Car: missing again
            $0.register(Chicken.self) { _ = try $0.resolve(Egg.self); return Chicken() }
            $0.register(Egg.self) { _ = try $0.resolve(Chicken.self); return Egg() }
            $0.register(Engine.self) { _ in throw BrokenFactory() }
            $0.register((any Greeter).self) { _ in English() }
        }
        let error = try #require(throws: ContainerValidationError.self) { try container.validate() }
        let faulty = error.problems.map { problem -> String in
            switch problem {
            case .notRegistered(let key, _, _): "missing \(key.typeName)"
            case .cycle: "cycle"
            case .factoryFailed(let key, _, _): "failed \(key.typeName)"
            }
        }
        #expect(faulty == ["missing DomainTests.Car", "cycle", "failed DomainTests.Engine"])
        #expect(error.description.contains("3 problem(s)"))
    }
}
