#if os(Linux)
@testable import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// The presence source when a bus goes away under it: logind's system bus
/// lost ends the stream (the daemon follows it anew, `PresenceService`);
/// the session bus that carries GNOME's idle monitor lost and started again
/// at the same address, the monitor is followed again by the same stream.
@Suite("PresenceSignals: a lost bus", .serialized, .enabled(if: PrivateBus.installed))
struct PresenceBusLossTests {
    func within(_ seconds: Double, _ condition: () -> Bool) async -> Bool { await FollowedPresence.within(seconds, condition) }

    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("retime-buses-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("logind's bus killed: the stream ends, so its follower knows to follow it anew")
    func systemBusLost() async throws {
        let system = try PrivateBus(type: "system")
        defer { system.stop() }
        let logind = try LogindStandIn(address: system.address)
        let seen = FollowedPresence(LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address], uid: 0))
        defer { seen.cancel() }
        #expect(await within(promptlyHere) { seen.all.first?.state == .present }, "\(seen.all)")
        logind.stop()
        system.stop()
        #expect(await within(promptlyHere) { seen.ended }, "the stream ended with its bus")
    }

    @Test("the session bus restarted at the same address: GNOME's idle monitor is followed again, its idle heard")
    func sessionBusBack() async throws {
        let path = try folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let socket = path + "/session"
        let system = try PrivateBus(type: "system")
        var session = try PrivateBus(socket: socket)
        defer { system.stop(); session.stop() }
        let logind = try LogindStandIn(address: system.address)
        defer { logind.stop() }
        var monitor = try MutterIdleStandIn(address: session.address)
        defer { monitor.stop() }
        let seen = FollowedPresence(LogindPresenceSignals(environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address,
                                                                        "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + socket], uid: 0))
        defer { seen.cancel() }
        #expect(await within(promptlyHere) { seen.all.first?.state == .present && monitor.calls.contains("AddIdleWatch") }, "\(seen.all)")
        monitor.stop()
        session.stop()
        session = try PrivateBus(socket: socket)
        monitor = try MutterIdleStandIn(address: session.address)
        // Backoff: tries 1, 3, 7, 15 and 31 s after the loss.
        #expect(await within(promptlyHere) { monitor.calls.contains("AddIdleWatch") }, "the new monitor is asked for its watch")
        monitor.fire(MutterIdleStandIn.idleWatch)
        #expect(await within(promptlyHere) { seen.all.last?.state == .idle }, "\(seen.all)")
        #expect(!seen.ended, "logind's part goes on in the same stream")
    }

    /// A bound on lost, not on slow: in the whole parallel suite a task can
    /// wait many seconds for a thread of the cooperative pool (the backoff's
    /// retries and the follower's task run there).
    let promptlyHere: Double = 60
}
#endif
