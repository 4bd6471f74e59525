import Domain
import Testing

/// Types that form cycles on purpose.
struct Chicken: Sendable {}
struct Egg: Sendable {}
struct Nest: Sendable {}

@Suite("Container: cycles")
struct ContainerCycleTests {
    private let chicken = ServiceKey(Chicken.self), egg = ServiceKey(Egg.self), nest = ServiceKey(Nest.self)

    @Test("a two-step cycle reports its full path", arguments: [Lifetime.transient, .singleton])
    func twoStep(lifetime: Lifetime) throws {
        let container = Container {
            $0.register(Chicken.self, lifetime: lifetime) { _ = try $0.resolve(Egg.self); return Chicken() }
            $0.register(Egg.self, lifetime: lifetime) { _ = try $0.resolve(Chicken.self); return Egg() }
        }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Chicken.self) }
        guard case .cycle(let path) = error else {
            Issue.record("expected a cycle, got \(error)")
            return
        }
        #expect(path == [chicken, egg, chicken])
        #expect(error.description == "dependency cycle: DomainTests.Chicken -> DomainTests.Egg -> DomainTests.Chicken")
    }

    @Test("a service that needs itself is a cycle of one")
    func selfCycle() throws {
        let container = Container { $0.register(Nest.self) { _ = try $0.resolve(Nest.self); return Nest() } }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Nest.self) }
        #expect(error.description == "dependency cycle: DomainTests.Nest -> DomainTests.Nest")
    }

    @Test("a cycle entered from outside names the way in")
    func enteredFromOutside() throws {
        let container = Container {
            $0.register(Nest.self) { _ = try $0.resolve(Chicken.self); return Nest() }
            $0.register(Chicken.self) { _ = try $0.resolve(Egg.self); return Chicken() }
            $0.register(Egg.self) { _ = try $0.resolve(Chicken.self); return Egg() }
        }
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Nest.self) }
        guard case .cycle(let path) = error else {
            Issue.record("expected a cycle, got \(error)")
            return
        }
        #expect(path == [nest, chicken, egg, chicken])
    }
}
