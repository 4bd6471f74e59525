import Adapters
import Domain
import PortContracts
import Testing

/// The enforcer of the `none` and `hosts` shields, which keeps no passcode.
/// (The system service's, which keeps one, is checked against a real
/// service in the end-to-end suites.)
@Suite("No enforcer keeps the EnforcerPasscodes contract")
struct EnforcerPasscodesContractTests {
    @Test(arguments: EnforcerPasscodesContract.checks)
    func none(_ check: ContractCheck<EnforcerPasscodesContract.Factory>) async throws {
        try await check.run { .init(enforcer: NoEnforcerPasscodes(), keepsPasscode: false) }
    }
}
