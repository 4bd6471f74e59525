import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The real wake source (timerfd, inotify) and the scripted one of the
/// daemon's in-process tests, against one verifier.
@Suite("Wake signals keep the WakeSignals contract", .serialized)
struct WakeSignalsContractTests {
    @Test(arguments: WakeSignalsContract.checks)
    func wakeSource(_ check: ContractCheck<WakeSignalsContract.Factory>) async throws {
        try await check.run {
            let store = TemporaryDirectory()
            let zone = TemporaryDirectory()
            let wake = try WakeSource(watching: store.path, timeZoneFiles: [zone.file("localtime")])
            return .init(signals: wake, now: { Date() }, changeData: {
                try Data("{}".utf8).write(to: URL(fileURLWithPath: store.file("groups.json")))
            })
        }
    }

    @Test(arguments: WakeSignalsContract.checks)
    func scripted(_ check: ContractCheck<WakeSignalsContract.Factory>) async throws {
        try await check.run {
            let clock = ManualClock()
            let wake = ScriptedWakeSignals(clock: clock)
            return .init(signals: wake, now: { clock.now() }, changeData: { wake.post(.dataChanged) })
        }
    }
}
