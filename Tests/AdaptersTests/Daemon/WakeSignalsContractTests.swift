import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The real wake source (timerfd, and a data watcher posting to its mailbox) and the scripted one of the
/// daemon's in-process tests, against one verifier.
@Suite("Wake signals keep the WakeSignals contract", .serialized)
struct WakeSignalsContractTests {
    @Test(arguments: WakeSignalsContract.checks)
    func wakeSource(_ check: ContractCheck<WakeSignalsContract.Factory>) async throws {
        try await check.run {
            let store = TemporaryDirectory()
            let mailbox = try WakeMailbox()
            let watcher = try DirectoryWatcher.data(directory: store.path)
            try watcher.start(posting: mailbox)
            let wake = try WakeSource(mailbox: mailbox, followsTimeZone: false)
            return .init(signals: wake, now: { Date() }, changeData: {
                _ = watcher  // watching for as long as the subject lives
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
