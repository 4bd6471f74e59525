import FoundationEssentials
import RetimeShared

/// Checks a passcode for an action, under the lockout rules, and records
/// the attempt in the audit trail whatever its outcome.
///
/// The attempt is counted as a failure *before* the slow hash comparison
/// and forgiven after it if the passcode was right. So processes trying
/// passcodes in parallel cannot slip more than the free attempts past the
/// lock while their comparisons are still running.
public struct VerifyPasscodeUseCase: Sendable {
    private let state: any AuthStateStore
    private let hasher: any PasscodeHasher
    private let audit: any AuditTrail
    private let clock: any Clock
    /// Where the passcode is checked when the enforcer holds it (nil in the
    /// enforcer itself: its own state then holds the hash).
    private let enforcer: (any EnforcerPasscodes)?

    public init(state: any AuthStateStore, hasher: any PasscodeHasher, audit: any AuditTrail, clock: any Clock,
                enforcer: (any EnforcerPasscodes)? = nil) {
        self.state = state
        self.hasher = hasher
        self.audit = audit
        self.clock = clock
        self.enforcer = enforcer
    }

    /// Returns if `passcode` is right for `action`; throws `passcodeNotSet`,
    /// `passcodeRequired`, `lockedOut` or `wrongPasscode` otherwise.
    public func execute(_ passcode: Passcode?, action: String) async throws {
        let now = clock.now()
        if let enforcer, try await PasscodeHandover(state: state, enforcer: enforcer).settled().passcodeIsWithEnforcer {
            return try await verifyWith(enforcer, passcode, action: action, at: now)
        }
        let reservation = try await state.update { state -> Reservation in
            guard let hash = state.passcodeHash else { return .refused(.passcodeNotSet) }
            if let until = state.lockedOut(at: now) { return .refused(.lockedOut(until: until)) }
            guard passcode != nil else { return .refused(.passcodeRequired) }
            state.recordFailure(at: now)
            return .counted(hash: hash, failures: state.failedAttempts, lockedUntil: state.lockedUntil)
        }
        switch reservation {
        case .refused(let error):
            try await record(action, at: now, failure: error)
            throw error
        case .counted(let hash, let failures, let lockedUntil):
            guard let passcode, hasher.verify(passcode, against: hash) else {
                let error = AuthError.wrongPasscode(attemptsLeft: max(Lockout.freeAttempts - failures, 0),
                                                    lockedUntil: failures >= Lockout.freeAttempts ? lockedUntil : nil)
                try await record(action, at: now, failure: error)
                throw error
            }
            try await state.update { $0.recordSuccess() }
            try await audit.append(AuditEntry(action: action, at: now, success: true))
        }
    }

    /// The enforcer's check, under its lockout and audit; the user's audit
    /// trail records the attempt too.
    private func verifyWith(_ enforcer: any EnforcerPasscodes, _ passcode: Passcode?, action: String, at now: Date) async throws {
        guard let passcode else {
            try await record(action, at: now, failure: .passcodeRequired)
            throw AuthError.passcodeRequired
        }
        do {
            try await enforcer.verify(passcode, action: action)
        } catch {
            let code = (error as? any RetimeError)?.code ?? "failed"
            try await audit.append(AuditEntry(action: action, at: now, success: false,
                                              reason: code.hasPrefix("auth.") ? String(code.dropFirst("auth.".count)) : code))
            // The enforcer holds none after all (removed there, or its state
            // lost): the note goes, and the refusal a strict session gives
            // without a passcode stands.
            if case AuthError.passcodeNotSet? = error as? AuthError {
                try await state.update { $0.passcodeHeldByEnforcer = nil }
            }
            throw error
        }
        try await audit.append(AuditEntry(action: action, at: now, success: true))
    }

    private func record(_ action: String, at now: Date, failure: AuthError) async throws {
        try await audit.append(AuditEntry(action: action, at: now, success: false, reason: failure.reason))
    }

    private enum Reservation: Sendable {
        case refused(AuthError)
        case counted(hash: String, failures: Int, lockedUntil: Date?)
    }
}

extension AuthError {
    /// The audit trail's word for a failure: the error code without its context.
    var reason: String { String(code.dropFirst("auth.".count)) }
}
