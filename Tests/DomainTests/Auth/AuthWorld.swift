import Adapters
import Domain
import Foundation
import PortContracts

/// The Auth context wired to in-memory adapters, a fast test hasher and a
/// hand-driven clock.
struct AuthWorld {
    let clock: ManualClock
    let state = InMemoryAuthState()
    let audit = InMemoryAuditTrail()
    let hasher = TestPasscodeHasher()
    let strict: any StrictSessionQuery

    init(clock: ManualClock = ManualClock(), strict: any StrictSessionQuery = NoStrictSession()) {
        self.clock = clock
        self.strict = strict
    }

    var verify: VerifyPasscodeUseCase { VerifyPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock) }
    var override: PasscodeOverride { PasscodeOverride(verify: verify) }
    var set: SetPasscodeUseCase { SetPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, strict: strict, dataLock: InMemoryDataLock(), enforcer: NoEnforcerPasscodes()) }
    var change: ChangePasscodeUseCase { ChangePasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, dataLock: InMemoryDataLock(), enforcer: NoEnforcerPasscodes()) }
    var status: AuthStatusUseCase { AuthStatusUseCase(state: state, clock: clock) }

    /// Tries `passcode` for `action`; the error, or nil if it was accepted.
    func attempt(_ passcode: String?, action: String = "stop") async -> AuthError? {
        do {
            try await verify.execute(passcode.map(Passcode.init), action: action)
            return nil
        } catch {
            return error as? AuthError
        }
    }
}

/// A strict-session query with no strict session running, or one until `until`.
struct NoStrictSession: StrictSessionQuery {
    var until: Date?
    func strictUntil() async throws -> Date? { until }
}
