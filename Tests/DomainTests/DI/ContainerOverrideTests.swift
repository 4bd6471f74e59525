import Domain
import Testing

@Suite("Container: overrides")
struct ContainerOverrideTests {
    private static func base() -> Container {
        Container {
            $0.register((any Greeter).self, lifetime: .singleton) { _ in English() }
            $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
        }
    }

    @Test("a child replaces a registration; the parent keeps its own")
    func childReplaces() throws {
        let parent = Self.base()
        let child = parent.overriding { $0.register((any Greeter).self) { _ in French() } }
        #expect(try child.resolve((any Greeter).self).greeting == "bonjour")
        #expect(try parent.resolve((any Greeter).self).greeting == "hello")
    }

    @Test("a child has its own singletons, even of registrations it did not change")
    func ownSingletons() throws {
        let parent = Self.base()
        let parentEngine = try parent.resolve(Engine.self)
        let child = parent.overriding { $0.register((any Greeter).self) { _ in French() } }
        #expect(try child.resolve(Engine.self) !== parentEngine)
        #expect(try parent.resolve(Engine.self) === parentEngine)
    }

    @Test("many children built in parallel from one parent stay apart")
    func parallelChildren() async throws {
        let parent = Self.base()
        let greetings = try await withThrowingTaskGroup(of: (Int, String).self) { tasks in
            for index in 0..<200 {
                tasks.addTask {
                    let child = parent.overriding { registry in
                        registry.register((any Greeter).self) { _ in English(greeting: "hi \(index)") }
                    }
                    return (index, try child.resolve((any Greeter).self).greeting)
                }
            }
            return try await tasks.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(greetings.count == 200)
        #expect(greetings.allSatisfy { $0.value == "hi \($0.key)" })
        #expect(try parent.resolve((any Greeter).self).greeting == "hello")
    }
}
