import Foundation

/// What `auth status` reports.
public struct AuthStatus: Sendable, Equatable {
    public var passcodeSet: Bool
    /// The lock in force now, if any (a lock that has run out is not reported).
    public var lockedUntil: Date?
    public var failedAttempts: Int
    public var shieldAuthorization: ShieldAuthorization
}

/// Reads the Auth context's state as of now.
public struct AuthStatusUseCase: Sendable {
    private let state: any AuthStateStore
    private let clock: any Clock

    public init(state: any AuthStateStore, clock: any Clock) {
        self.state = state
        self.clock = clock
    }

    public func execute() async throws -> AuthStatus {
        let current = try await state.state()
        return AuthStatus(passcodeSet: current.passcodeHash != nil, lockedUntil: current.lockedOut(at: clock.now()),
                          failedAttempts: current.failedAttempts, shieldAuthorization: current.shieldAuthorization)
    }
}
