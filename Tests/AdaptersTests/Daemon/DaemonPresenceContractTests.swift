import Adapters
import Domain
import Foundation
import PortContracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon lock as the `DaemonPresence` that `status` asks.
@Suite("The daemon lock keeps the DaemonPresence contract")
struct DaemonPresenceContractTests {
    @Test(arguments: DaemonPresenceContract.checks)
    func daemonLock(_ check: ContractCheck<DaemonPresenceContract.Factory>) async throws {
        try await check.run {
            let lock = DaemonLock(dataDirectory: TemporaryDirectory().path)
            let held = HeldBox()
            return .init(presence: lock, start: { held.set(try lock.acquire()) }, stop: { held.release() }, pid: getpid())
        }
    }
}

/// The daemon lock held between a contract's start and stop.
private final class HeldBox: @unchecked Sendable {
    private var held: HeldDaemonLock?
    private let lock = NSLock()
    func set(_ value: HeldDaemonLock) { lock.withLock { held = value } }
    func release() { lock.withLock { held?.release(); held = nil } }
}
