#if os(Linux)
@testable import Adapters
import Foundation
import PortContracts

/// A desktop's buses for one test, never the host's: a private system bus
/// with a stand-in logind, a private session bus, and GNOME's idle monitor
/// (a stand-in) on it unless the test starts one itself.
final class TestDesktop {
    let system: PrivateBus
    let session: PrivateBus
    let logind: LogindStandIn
    private(set) var monitor: MutterIdleStandIn?

    /// `monitor`: whether GNOME's idle monitor answers from the start, and
    /// the idle time it says then, in ms.
    init(monitor: Bool = true, idleTime: UInt64 = 0) throws {
        system = try PrivateBus(type: "system")
        session = try PrivateBus()
        logind = try LogindStandIn(address: system.address)
        if monitor { self.monitor = try MutterIdleStandIn(address: session.address, idleTime: idleTime) }
    }

    /// The environment a user's process on this desktop has.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "DBUS_SESSION_BUS_ADDRESS": session.address] }

    /// gnome-shell starting after the bus: the monitor appears now.
    func startMonitor() throws -> MutterIdleStandIn {
        let started = try MutterIdleStandIn(address: session.address)
        monitor = started
        return started
    }

    func stop() {
        monitor?.stop()
        logind.stop()
        system.stop()
        session.stop()
    }
}
#endif
