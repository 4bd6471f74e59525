#if os(Linux)
import Adapters
import Foundation
import PortContracts
import Testing

/// The daemon's desktop links across a lost bus (issue 33): the session bus
/// and the system bus that logind is on, both of the test's own
/// (`dbus-daemon` at a path the test chooses, never the machine's), killed
/// under a running daemon and started again at the same address, as
/// `systemctl --user restart dbus` or a new login of a lingering user does.
@Suite("the daemon's D-Bus links after a lost bus", .serialized, .enabled(if: PrivateBus.installed))
struct DesktopBusReconnectTests {
    func log(_ retime: RetimeProcess) -> String {
        (try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? ""
    }

    func count(_ text: String, in log: String) -> Int { log.components(separatedBy: text).count - 1 }

    /// Backoff's first tries (1 s, 3 s, 7 s after the loss) and a loaded machine's slack.
    static let reconnectBound: TimeInterval = 7 + promptly

    @Test("both buses restarted: the name is owned again, a change reaches PropertiesChanged, logind is followed again; each said once")
    func reconnects() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retime-buses-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sessionSocket = folder + "/session", systemSocket = folder + "/system"
        var session = try PrivateBus(socket: sessionSocket), system = try PrivateBus(type: "system", socket: systemSocket)
        var logind = try LogindStandIn(address: system.address)
        defer { logind.stop(); session.stop(); system.stop() }
        var retime = RetimeProcess().onSessionBus("unix:path=" + sessionSocket)
        retime.environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + systemSocket
        try retime.run("group", "create", "focus")
        let daemon = try retime.startDaemon()
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        #expect(eventually(within: 15) { log(retime).contains("owns dev.retime.Retime1") && log(retime).contains("away time: follows logind") },
                "\(log(retime))")

        logind.stop()
        session.stop()
        system.stop()
        #expect(eventually(within: promptly) { log(retime).contains("lost the session bus") && log(retime).contains("away time: lost its source") },
                "\(log(retime))")
        session = try PrivateBus(socket: sessionSocket)
        system = try PrivateBus(type: "system", socket: systemSocket)
        logind = try LogindStandIn(address: system.address)

        let client = try DesktopBusEndToEndTests.Client(address: session.address)
        defer { client.close() }
        #expect(eventually(within: Self.reconnectBound) { client.answers }, "the name is owned again: \(log(retime))")
        #expect(try retime.run("start", "focus", "--for", "25m").status == 0)
        #expect(client.change(after: 0, setting: "Active", to: true) != nil, "the start reached PropertiesChanged: \(client.all.map(\.names))")
        #expect(eventually(within: Self.reconnectBound) { log(retime).contains("follows logind") && log(retime).contains(" again") },
                "logind followed again: \(log(retime))")
        try await logind.set(.locked)
        #expect(eventually(within: promptly) {
            let session = (try? retime.run("status", "--json").json["session"]) as? [String: Any]
            return (session?["away"] as? [[String: Any]])?.contains { $0["reason"] as? String == "locked" } == true
        }, "the lock heard after the reconnection is recorded")

        // doctor names what the running daemon follows: logind, and why not GNOME's monitor (none on this bus).
        let away = try retime.doctorFinding("away time")?["detail"] as? String ?? ""
        #expect(away.contains("logind (session \(LogindStandIn.sessionPath): sleep, lock and its idle hint)"), "\(away)")
        #expect(away.contains("not GNOME's idle monitor: none answers on the session bus"), "\(away)")
        #expect(away.contains("now: the daemon, pid \(daemon.process.processIdentifier)"), "\(away)")

        let said = log(retime)
        #expect(count("lost the session bus", in: said) == 1, "said once: \(said)")
        #expect(count("reconnected to the session bus", in: said) == 1, "said once: \(said)")
        #expect(count("away time: lost its source", in: said) == 1, "said once: \(said)")
        kill(daemon.process.processIdentifier, SIGTERM)
        let outcome = try retime.finish(daemon)
        #expect(outcome.status == 0, "stopped cleanly: \(outcome.err)")
    }
}
#endif
