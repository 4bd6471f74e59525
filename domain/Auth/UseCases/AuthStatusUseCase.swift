import FoundationEssentials
import RetimeShared

/// What `auth status` reports.
public struct AuthStatus: Sendable, Equatable {
    public var passcodeSet: Bool
    /// The lock in force now, if any (a lock that has run out is not reported).
    public var lockedUntil: Date?
    public var failedAttempts: Int
    public var shieldAuthorization: ShieldAuthorization
    /// The system service holds the passcode (its lockout applies; the
    /// user's data keeps no hash).
    public var heldByEnforcer: Bool = false
    /// Which device last set or removed the passcode, where devices share
    /// it (nil otherwise, and when the system service holds it).
    public var origin: PasscodeOrigin?
}

/// Reads the Auth context's state as of now.
public struct AuthStatusUseCase: Sendable {
    private let state: any AuthStateStore
    private let clock: any Clock
    private let enforcer: (any EnforcerPasscodes)?

    public init(state: any AuthStateStore, clock: any Clock, enforcer: (any EnforcerPasscodes)? = nil) {
        self.state = state
        self.clock = clock
        self.enforcer = enforcer
    }

    public func execute() async throws -> AuthStatus {
        let current = try await PasscodeHandover(state: state, enforcer: enforcer).settled()
        var status = AuthStatus(passcodeSet: current.isPasscodeSet, lockedUntil: current.lockedOut(at: clock.now()),
                                failedAttempts: current.failedAttempts, shieldAuthorization: current.shieldAuthorization,
                                heldByEnforcer: current.passcodeIsWithEnforcer)
        // The enforcer's checks count, not this data's: its lockout is shown
        // (when it cannot be asked, what this data knows).
        if !status.heldByEnforcer { status.origin = try await state.passcodeOrigin() }
        if status.heldByEnforcer, let held = try? await enforcer?.passcodeState() {
            status.failedAttempts = held.failedAttempts
            status.lockedUntil = held.lockedUntil
        }
        return status
    }
}
