#if os(Linux)
@testable import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// `doctor`'s "away time" finding names what the daemon follows: logind's
/// sleep, lock and idle hint, and GNOME's idle monitor where one answers on
/// the session bus, or why not; and whether a daemon runs to follow them.
/// Against the stand-in logind and monitor on buses of the test's own.
@Suite("doctor: which presence sources are followed", .serialized, .enabled(if: PrivateBus.installed))
struct PresenceSourcesHealthTests {
    struct Daemon: DaemonPresence {
        let pid: Int32?
        func running() -> RunningDaemon? { pid.map { RunningDaemon(pid: $0, since: nil) } }
    }

    func detail(_ environment: [String: String], daemon: Int32? = nil) async -> String {
        let health = PresenceHealth(presence: LogindPresenceSignals(environment: environment, uid: 0), clock: ManualClock(), threshold: 300,
                                    daemon: Daemon(pid: daemon))
        return await health.inspect(repairing: false).first?.detail ?? "(no finding)"
    }

    @Test("GNOME's idle monitor on the session bus: named beside logind's sources; with a daemon running, it says so")
    func monitorFollowed() async throws {
        let desktop = try TestDesktop()
        defer { desktop.stop() }
        let said = await detail(desktop.environment, daemon: 4242)
        #expect(said.contains("logind (session \(LogindStandIn.sessionPath): sleep, lock and its idle hint)"), "\(said)")
        #expect(said.contains("and GNOME's idle monitor (org.gnome.Mutter.IdleMonitor on the session bus)"), "\(said)")
        #expect(said.contains("now: the daemon, pid 4242"), "\(said)")
    }

    @Test("no monitor on the session bus, or no session bus: logind alone, and why not the monitor; no daemon: says so")
    func monitorNotFollowed() async throws {
        let desktop = try TestDesktop(monitor: false)
        defer { desktop.stop() }
        let notGnome = await detail(desktop.environment)
        #expect(notGnome.contains("not GNOME's idle monitor: none answers on the session bus (not GNOME)"), "\(notGnome)")
        #expect(notGnome.contains("no daemon runs now"), "\(notGnome)")
        let noBus = await detail(["DBUS_SYSTEM_BUS_ADDRESS": desktop.system.address])
        #expect(noBus.contains("not GNOME's idle monitor: no session bus"), "\(noBus)")
        #expect(!noBus.contains("and GNOME's idle monitor"), "\(noBus)")
    }
}
#endif
