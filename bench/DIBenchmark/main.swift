import Dispatch
import Domain
import Foundation

// Measures what a resolve from the DI container costs: a built singleton,
// and a three-level graph of transients (each resolve builds three objects).
// Run through bench/di.sh on a release build.

final class Engine: Sendable {}
final class Car: Sendable {
    let engine: Engine
    init(engine: Engine) { self.engine = engine }
}
protocol Greeter: Sendable { func greet() -> String }
struct English: Greeter { func greet() -> String { "hello" } }
final class Garage: Sendable {
    let car: Car
    init(car: Car) { self.car = car }
}

let container = Container {
    $0.register(Engine.self, lifetime: .singleton) { _ in Engine() }
    $0.register((any Greeter).self, lifetime: .singleton) { _ in English() }
    $0.register(Car.self) { Car(engine: try $0.resolve(Engine.self, name: "transient")) }
    $0.register(Engine.self, name: "transient") { _ in Engine() }
    $0.register(Garage.self) { Garage(car: try $0.resolve()) }
}

@inline(never)
func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Runs `body` `iterations` times, `rounds` times, and returns the best ns per call.
func measure(iterations: Int, rounds: Int = 7, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try body() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        best = min(best, Double(elapsed) / Double(iterations))
    }
    return best
}

let singleton = try measure(iterations: 2_000_000) { keep(try container.resolve(Engine.self)) }
let protocolSingleton = try measure(iterations: 2_000_000) { keep(try container.resolve((any Greeter).self)) }
let transientGraph = try measure(iterations: 500_000) { keep(try container.resolve(Garage.self)) }
let direct = measure(iterations: 500_000) { keep(Garage(car: Car(engine: Engine()))) }

print("| singleton resolve | \(String(format: "%.1f", singleton)) ns |")
print("| singleton resolve, protocol type (`any Greeter`) | \(String(format: "%.1f", protocolSingleton)) ns |")
print("| 3-level transient graph resolve | \(String(format: "%.1f", transientGraph)) ns |")
print("| the same 3 objects built by hand | \(String(format: "%.1f", direct)) ns |")
