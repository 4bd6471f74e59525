/// Sets the first passcode. Refused while a strict session runs: a session
/// started with no passcode set has no way out, and setting one now would
/// make one.
public struct SetPasscodeUseCase: Sendable {
    private let state: any AuthStateStore
    private let hasher: any PasscodeHasher
    private let audit: any AuditTrail
    private let clock: any Clock
    private let strict: any StrictSessionQuery
    private let dataLock: any DataLock
    private let enforcer: any EnforcerPasscodes

    public init(state: any AuthStateStore, hasher: any PasscodeHasher, audit: any AuditTrail, clock: any Clock,
                strict: any StrictSessionQuery, dataLock: any DataLock, enforcer: any EnforcerPasscodes) {
        self.state = state
        self.hasher = hasher
        self.audit = audit
        self.clock = clock
        self.strict = strict
        self.dataLock = dataLock
        self.enforcer = enforcer
    }

    public func execute(_ passcode: Passcode) async throws {
        try PasscodePolicy.check(passcode)
        // The cheap refusals before the slow hash (tens of milliseconds): a
        // request that is refused anyway must not cost it. Asked again
        // under the lock below, where they decide.
        if let until = try await strict.strictUntil() { throw AuthError.strictSession(until: until) }
        guard try await state.state().passcodeHash == nil else { throw AuthError.passcodeAlreadySet }
        let hash = try hasher.hash(passcode)
        // A strict session starting meanwhile sees the passcode set or not,
        // never one set after it checked.
        try await dataLock.exclusively {
            if let until = try await strict.strictUntil() { throw AuthError.strictSession(until: until) }
            guard try await state.state().passcodeHash == nil else { throw AuthError.passcodeAlreadySet }
            // The enforcer first: a passcode it refused is not set here either.
            try await enforcer.set(passcode)
            try await state.update { state in
                guard state.passcodeHash == nil else { throw AuthError.passcodeAlreadySet }
                state.passcodeHash = hash
                state.recordSuccess()
            }
        }
        try await audit.append(AuditEntry(action: "set-passcode", at: clock.now(), success: true))
    }
}
