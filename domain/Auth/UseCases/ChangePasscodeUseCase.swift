import RetimeShared

/// Replaces the passcode, or removes it, given the current one. Removing is
/// always allowed, even in a strict session: it only makes the session
/// stricter.
public struct ChangePasscodeUseCase: Sendable {
    private let state: any AuthStateStore
    private let hasher: any PasscodeHasher
    /// Checks the current passcode under the lockout rules; its audit entry
    /// (`change-passcode` or `remove-passcode`) records the change.
    private let verify: VerifyPasscodeUseCase
    private let dataLock: any DataLock
    private let enforcer: any EnforcerPasscodes

    public init(state: any AuthStateStore, hasher: any PasscodeHasher, audit: any AuditTrail, clock: any Clock,
                dataLock: any DataLock, enforcer: any EnforcerPasscodes) {
        self.state = state
        self.hasher = hasher
        self.verify = VerifyPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, enforcer: enforcer)
        self.dataLock = dataLock
        self.enforcer = enforcer
    }

    // The check of the current passcode and the write are one step under the
    // data lock: of two changes made with the same old passcode at once, the
    // second is checked against the first one's new passcode, so every change
    // that is acknowledged holds.

    /// Replaces `current` by `new`.
    public func change(from current: Passcode, to new: Passcode) async throws {
        try PasscodePolicy.check(new)
        try await dataLock.exclusively {
            try await verify.execute(current, action: "change-passcode")
            if try await state.state().passcodeIsWithEnforcer {
                try await enforcer.change(from: current, to: new)
            } else if try await enforcer.heldPasscode() == false {
                // A passcode set before the enforcer kept passcodes moves there.
                try await enforcer.set(new)
                try await state.update { state in
                    state.passcodeHash = nil
                    state.passcodeHeldByEnforcer = true
                }
            } else {
                let hash = try hasher.hash(new)
                try await state.update { $0.passcodeHash = hash }
            }
        }
    }

    /// Removes the passcode, given it.
    public func remove(_ current: Passcode) async throws {
        try await dataLock.exclusively {
            try await verify.execute(current, action: "remove-passcode")
            if try await state.state().passcodeIsWithEnforcer { try await enforcer.remove(current) }
            try await state.update { state in
                state.passcodeHash = nil
                state.passcodeHeldByEnforcer = nil
            }
        }
    }
}
