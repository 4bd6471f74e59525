/// Where the Auth context keeps its state. `update` is an atomic
/// read-modify-write across processes, which is what makes the lockout hold
/// against a second process trying passcodes at the same time.
///
/// The contract every adapter keeps is `AuthStateStoreContract`.
public protocol AuthStateStore: Sendable {
    func state() async throws -> AuthState
    /// Runs `body` on the current state under an exclusive lock and stores
    /// what it leaves. If `body` throws, nothing is stored.
    func update<Result: Sendable>(_ body: (inout AuthState) throws -> Result) async throws -> Result
}
