import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The scripted presence source of the daemon's tests and the unavailable
/// one registered where no source is followed, against one verifier.
@Suite("Presence sources keep the PresenceSignals contract")
struct PresenceSignalsContractTests {
    @Test(arguments: PresenceSignalsContract.checks)
    func scripted(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await check.run {
            let clock = ManualClock()
            let presence = ScriptedPresenceSignals(clock: clock)
            return .init(signals: presence, drive: { presence.send($0) })
        }
    }

    @Test(arguments: PresenceSignalsContract.checks)
    func unavailable(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await check.run { .init(signals: UnavailablePresenceSignals(reason: "no logind here"), drive: nil) }
    }

    @Test(arguments: PresenceSignalsContract.checks)
    func scriptedUnavailable(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        try await check.run {
            .init(signals: ScriptedPresenceSignals(clock: ManualClock(), availability: .unavailable(reason: "switched off")), drive: nil)
        }
    }
}
