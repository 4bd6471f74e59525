import Domain
import FoundationEssentials
import JSONDocument
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Suites held in memory: the reference implementation of `KeyValueStore`.
public final class InMemoryKeyValueStore: KeyValueStore {
    private struct State {
        var suites: [String: [String: JSONValue]] = [:]
        var defaults: [String: [String: JSONValue]] = [:]
        var observers: [UUID: AsyncStream<String>.Continuation] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func values(of suite: String) throws -> [String: JSONValue] {
        try SuiteName.check(suite)
        return state.withLock { $0.suites[suite] ?? [:] }
    }

    public func update<Result>(_ suite: String, durability: WriteDurability,
                               _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        try SuiteName.check(suite)
        let (result, observers) = try state.withLock { state in
            var values = state.suites[suite] ?? [:]
            let result = try body(&values)
            guard values != state.suites[suite] ?? [:] else { return (result, [AsyncStream<String>.Continuation]()) }
            state.suites[suite] = values
            return (result, Array(state.observers.values))
        }
        observers.forEach { $0.yield(suite) }
        return result
    }

    public func register(defaults: [String: JSONValue], in suite: String) {
        state.withLock { $0.defaults[suite, default: [:]].merge(defaults) { _, new in new } }
    }

    public func defaults(of suite: String) -> [String: JSONValue] {
        state.withLock { $0.defaults[suite] ?? [:] }
    }

    public func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        state.withLock { $0.observers[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
        return stream
    }
}
