import Foundation

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

    public init(state: any AuthStateStore, hasher: any PasscodeHasher, audit: any AuditTrail, clock: any Clock) {
        self.state = state
        self.hasher = hasher
        self.audit = audit
        self.clock = clock
    }

    /// Returns if `passcode` is right for `action`; throws `passcodeNotSet`,
    /// `passcodeRequired`, `lockedOut` or `wrongPasscode` otherwise.
    public func execute(_ passcode: Passcode?, action: String) async throws {
        let now = clock.now()
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
