import Domain
import Synchronization

/// A data lock for one process's in-memory adapters: holders queue in
/// order; re-entry is known from a task-local set, as in `FileDataLock`.
public final class InMemoryDataLock: DataLock {
    @TaskLocal private static var held: Set<ObjectIdentifier> = []
    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        let me = ObjectIdentifier(self)
        if Self.held.contains(me) { return try await body() }
        await acquire()
        defer { release() }
        return try await Self.$held.withValue(Self.held.union([me])) { try await body() }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                if state.busy { state.waiting.append(continuation); return false }
                state.busy = true
                return true
            }
            if free { continuation.resume() }
        }
    }

    /// How many wait for the lock now: a test knows another task is held
    /// up by it without timing anything.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Hands the lock to the next holder in line, if any.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else { state.busy = false; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
