import Domain
import Synchronization

/// Auth state in memory, for tests and previews.
public final class InMemoryAuthState: AuthStateStore {
    private let stored: Mutex<AuthState>

    public init(_ initial: AuthState = AuthState()) {
        stored = Mutex(initial)
    }

    public func state() async throws -> AuthState {
        stored.withLock { $0 }
    }

    public func update<Result: Sendable>(_ body: (inout AuthState) throws -> Result) async throws -> Result {
        try stored.withLock { state in
            var next = state
            let result = try body(&next)
            state = next
            return result
        }
    }
}
