#if os(Linux)
@testable import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// `LogindPresenceSignals` against a stand-in logind on a private
/// system-like bus (never the machine's), and with nothing to reach.
@Suite("PresenceSignals contract: logind", .enabled(if: PrivateBus.installed))
struct LogindPresenceContractTests {
    @Test(arguments: PresenceSignalsContract.checks)
    func logind(_ check: ContractCheck<PresenceSignalsContract.Factory>) async throws {
        let bus = try PrivateBus(type: "system")
        defer { bus.stop() }
        let standIn = try LogindStandIn(address: bus.address)
        defer { standIn.stop() }
        try await check.run {
            PresenceSignalsContract.Subject(signals: LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], uid: 0),
                                            set: { try await standIn.set($0) }, lose: { standIn.stop(); bus.stop() })
        }
    }

    @Test(arguments: PresenceSignalsContract.unavailableChecks)
    func nothingToReach(_ check: ContractCheck<@Sendable () async throws -> any PresenceSignals>) async throws {
        // No bus at that address.
        try await check.run { LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/retime-bus"]) }
        // A bus with no logind on it.
        let bus = try PrivateBus(type: "system")
        defer { bus.stop() }
        try await check.run { LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) }
        // A logind that knows no session of the user.
        let standIn = try LogindStandIn(address: bus.address, withSession: false)
        defer { standIn.stop() }
        try await check.run { LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], uid: 0) }
    }
}
#endif
