import RetimeShared

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
        // A strict session starting meanwhile sees the passcode set or not,
        // never one set after it checked.
        try await dataLock.exclusively {
            if let until = try await strict.strictUntil() { throw AuthError.strictSession(until: until) }
            guard !(try await PasscodeHandover(state: state, enforcer: enforcer).settled().isPasscodeSet) else {
                throw AuthError.passcodeAlreadySet
            }
            switch try await enforcer.heldPasscode() {
            case nil:
                // No enforcer keeps passcodes: the user's data holds the hash.
                let hash = try hasher.hash(passcode)
                try await state.update { state in
                    guard !state.isPasscodeSet else { throw AuthError.passcodeAlreadySet }
                    state.passcodeHash = hash
                    state.recordSuccess()
                }
            case true?:
                // The enforcer holds one this data forgot: it stands.
                try await state.update { $0.passcodeHeldByEnforcer = true }
                throw AuthError.passcodeAlreadySet
            case false?:
                // The enforcer alone keeps it; the user's data only notes that.
                try await enforcer.set(passcode)
                try await state.update { state in
                    state.passcodeHash = nil
                    state.passcodeHeldByEnforcer = true
                    state.recordSuccess()
                }
            }
        }
        try await audit.append(AuditEntry(action: "set-passcode", at: clock.now(), success: true))
    }
}
