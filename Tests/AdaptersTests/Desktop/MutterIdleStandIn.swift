#if os(Linux)
@testable import Adapters
import Foundation
import PortContracts
import Synchronization

/// A stand-in for GNOME's `org.gnome.Mutter.IdleMonitor` on a test's own
/// session bus: `GetIdletime` answers what the test set, `AddIdleWatch`
/// and `AddUserActiveWatch` give ids 1 and 2, and `fire` sends
/// `WatchFired` as Mutter does when input stops or comes back.
final class MutterIdleStandIn: Sendable {
    static let idleWatch: UInt32 = 1, activeWatch: UInt32 = 2
    let connection: BusConnection
    /// The idle time GetIdletime answers, in ms; and the watches asked for.
    private let state = StateBox()

    final class StateBox: Sendable {
        let value = Mutex<(idleTime: UInt64, added: [String])>((0, []))
        func withLock<T>(_ body: (inout (idleTime: UInt64, added: [String])) -> T) -> T { value.withLock { body(&$0) } }
    }

    init(address: String, idleTime: UInt64 = 0) throws {
        connection = try BusConnection(.session, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        state.withLock { $0.idleTime = idleTime }
        let connection = connection, state = state
        try LogindStandIn.onThread(connection) { () throws(BusError) in
            try connection.export(path: MutterIdleMonitor.path, interface: MutterIdleMonitor.interface, members: [
                .method("GetIdletime", arguments: "", result: "t"), .method("AddIdleWatch", arguments: "t", result: "u"),
                .method("AddUserActiveWatch", arguments: "", result: "u"), .method("RemoveWatch", arguments: "u"),
                .signal("WatchFired", type: "u"),
            ], handlers: BusObjectHandlers(get: { _, _ in false }, call: { token in
                state.withLock { $0.added.append(token.member) }
                switch token.member {
                case "GetIdletime":
                    let idle = state.withLock { $0.idleTime }
                    connection.reply(token) { _ = $0.append(idle) }
                case "AddIdleWatch": connection.reply(token) { _ = $0.append(Self.idleWatch) }
                case "AddUserActiveWatch": connection.reply(token) { _ = $0.append(Self.activeWatch) }
                default: connection.reply(token) { _ in }
                }
            }))
            try connection.requestName(MutterIdleMonitor.destination)
        }
    }

    /// The methods called so far, by name.
    var calls: [String] { state.withLock { $0.added } }

    func fire(_ watch: UInt32) {
        connection.emitSignal(path: MutterIdleMonitor.path, interface: MutterIdleMonitor.interface, member: "WatchFired") { _ = $0.append(watch) }
    }

    func stop() { connection.close() }
}
#endif
