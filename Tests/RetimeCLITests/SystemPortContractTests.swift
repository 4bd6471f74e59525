#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The `system` shield's adapters keep their ports' contracts against a
/// real service process (as root: the contracts' sessions and passcodes
/// are one user's): the Shield itself, the passcode the service keeps, and
/// its answer to `auth request`, with and without a service to answer.
@Suite("The system shield's adapters keep their contracts", .serialized, .enabled(if: SystemServiceHarness.available, "needs root"))
struct SystemPortContractTests {
    @Test(arguments: ShieldContract.checks)
    func shield(_ check: ContractCheck<ShieldContract.Factory>) async throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        try await check.run { SystemShield(socketPath: system.socket) }
    }

    @Test(arguments: EnforcerPasscodesContract.checks)
    func passcodes(_ check: ContractCheck<EnforcerPasscodesContract.Factory>) async throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        try await check.run { .init(enforcer: SystemPasscodes(socketPath: system.socket), keepsPasscode: true) }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func probeWithService(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        try await check.run {
            .init(probe: SystemShield(socketPath: system.socket), expected: .approved) {
                ShieldAuthorizationProbeContract.files(under: system.state)
            }
        }
    }

    @Test(arguments: ShieldAuthorizationProbeContract.checks)
    func probeWithoutService(_ check: ContractCheck<ShieldAuthorizationProbeContract.Factory>) async throws {
        let system = try SystemServiceHarness()
        try await check.run {
            .init(probe: SystemShield(socketPath: system.socket), expected: .denied) {
                ShieldAuthorizationProbeContract.files(under: system.state)
            }
        }
    }
}
