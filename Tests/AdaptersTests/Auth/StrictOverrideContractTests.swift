import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The Auth context's `PasscodeOverride`, over the in-memory state and the
/// test hasher, and over the file store and the real hasher (yescrypt), as
/// the roots wire it.
@Suite("The strict override keeps the StrictOverride contract")
struct StrictOverrideContractTests {
    /// No strict session runs while the passcode is set.
    struct NoStrictSession: StrictSessionQuery {
        func strictUntil() async throws -> Date? { nil }
    }

    static func subject(state: any AuthStateStore, hasher: any PasscodeHasher) -> StrictOverrideContract.Subject {
        let clock = ManualClock(), audit = InMemoryAuditTrail()
        let verify = VerifyPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock)
        let set = SetPasscodeUseCase(state: state, hasher: hasher, audit: audit, clock: clock, strict: NoStrictSession(),
                                     dataLock: InMemoryDataLock(), enforcer: NoEnforcerPasscodes())
        return .init(override: PasscodeOverride(verify: verify)) { try await set.execute($0) }
    }

    @Test(arguments: StrictOverrideContract.checks)
    func inMemory(_ check: ContractCheck<StrictOverrideContract.Factory>) async throws {
        try await check.run { Self.subject(state: InMemoryAuthState(), hasher: TestPasscodeHasher()) }
    }

    @Test(arguments: StrictOverrideContract.checks)
    func onFiles(_ check: ContractCheck<StrictOverrideContract.Factory>) async throws {
        try await check.run {
            Self.subject(state: StoreAuthState(store: JSONFileStore(directory: TemporaryDirectory().file("store"))), hasher: CryptPasscodeHasher())
        }
    }
}
