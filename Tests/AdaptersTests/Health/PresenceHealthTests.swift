import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// `doctor`'s "away time" finding: whether idle and lock are followed and
/// whether the clocks tell suspended time (issue 33).
@Suite("doctor: away time")
struct PresenceHealthTests {
    @Test(arguments: HealthInspectorContract.checks)
    func contract(_ check: ContractCheck<HealthInspectorContract.Factory>) async throws {
        try await check.run { _ in PresenceHealth(presence: ScriptedPresenceSignals(clock: ManualClock()), clock: ManualClock(), threshold: 300) }
        try await check.run { _ in PresenceHealth(presence: UnavailablePresenceSignals(reason: "no logind"), clock: SystemClock(), threshold: nil) }
    }

    @Test("a source says it is followed and the threshold; none says why, and that sleep is still left out where the clocks tell it")
    func findings() async throws {
        let followed = await PresenceHealth(presence: ScriptedPresenceSignals(clock: ManualClock()), clock: ManualClock(), threshold: 300)
            .inspect(repairing: false)
        #expect(followed.map(\.name) == ["away time"])
        #expect(followed.first?.detail.contains("followed through scripted") == true)
        #expect(followed.first?.detail.contains("after 5m") == true)
        let missing = await PresenceHealth(presence: UnavailablePresenceSignals(reason: "no logind on this machine"), clock: ManualClock(),
                                           threshold: 300).inspect(repairing: false)
        #expect(missing.first?.status == .ok)
        #expect(missing.first?.detail.contains("no logind on this machine") == true)
        #expect(missing.first?.detail.contains("suspended time is left out of focused time") == true)
        struct WallOnly: RetimeShared.Clock {
            func now() -> Date { Date() }
            func sleep(until deadline: Date) async throws {}
        }
        let blind = await PresenceHealth(presence: UnavailablePresenceSignals(reason: "none"), clock: WallOnly(), threshold: 300)
            .inspect(repairing: false)
        #expect(blind.first?.status == .warning)
    }
}
