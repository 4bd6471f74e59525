/// One named rule of a port's contract, run against an adapter made by a
/// factory. A verifier is a list of these; a test target runs every check
/// against every adapter (`@Test(arguments: XContract.checks)`), so each rule
/// passes or fails on its own, by name.
public struct ContractCheck<Factory: Sendable>: Sendable, CustomStringConvertible {
    public let name: String
    private let body: @Sendable (Factory) async throws -> Void

    public init(_ name: String, _ body: @escaping @Sendable (Factory) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs the check; throws `ContractViolation` when the adapter breaks the rule.
    public func run(_ factory: Factory) async throws {
        try await body(factory)
    }

    public var description: String { name }
}

/// A broken rule, with where the verifier noticed it.
public struct ContractViolation: Error, CustomStringConvertible {
    public let message: String
    public let file: StaticString
    public let line: UInt

    public var description: String { "\(file):\(line): contract violated: \(message)" }
}

/// Fails the check unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String,
             file: StaticString = #filePath, line: UInt = #line) throws {
    guard condition else { throw ContractViolation(message: message(), file: file, line: line) }
}

/// Fails the check unless the two values are equal.
func requireEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
    guard actual == expected else {
        throw ContractViolation(message: "\(what()): got \(actual), expected \(expected)", file: file, line: line)
    }
}

/// Fails the check unless `body` throws an error equal to `expected`.
func requireThrows<E: Error & Equatable>(_ expected: E, _ what: @autoclosure () -> String,
                                         file: StaticString = #filePath, line: UInt = #line,
                                         _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as E where error == expected {
        return
    } catch {
        throw ContractViolation(message: "\(what()): threw \(error), expected \(expected)", file: file, line: line)
    }
    throw ContractViolation(message: "\(what()): did not throw, expected \(expected)", file: file, line: line)
}
