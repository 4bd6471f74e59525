import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The scripted presence source of the daemon's tests and the unavailable
/// one registered where no source is followed, against one verifier.
@Suite("Presence sources keep the PresenceSignals contract")
struct ScriptedPresenceContractTests {
    @Test(arguments: PresenceSignalsContract.checks)
    func scripted(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await check.run {
            // Stamped by the real date: the contract dates idle against it.
            let clock = ManualClock(now: Date())
            let presence = ScriptedPresenceSignals(clock: clock)
            return .init(signals: presence, set: { presence.send($0) }, lose: { presence.lose() })
        }
    }

    @Test(arguments: PresenceSignalsContract.unavailableChecks)
    func unavailable(_ check: ContractCheck<@Sendable () async throws -> any PresenceSignals>) async throws {
        try await check.run { UnavailablePresenceSignals(reason: "no logind here") }
        try await check.run { ScriptedPresenceSignals(clock: ManualClock(), availability: .unavailable(reason: "switched off")) }
    }
}
