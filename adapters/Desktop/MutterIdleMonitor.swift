#if os(Linux)
import FoundationEssentials
import Synchronization

/// GNOME's own idle time: Mutter's `org.gnome.Mutter.IdleMonitor` on the
/// session bus (`/org/gnome/Mutter/IdleMonitor/Core`), which knows input
/// stopped where logind's `IdleHint` is often never set. An idle watch
/// (`AddIdleWatch`) fires `WatchFired(id)` once input has stopped for
/// `idleAfter`; a user-active watch (`AddUserActiveWatch`, one-shot) fires
/// at the next input.
enum MutterIdleMonitor {
    static let destination = "org.gnome.Mutter.IdleMonitor"
    static let path = "/org/gnome/Mutter/IdleMonitor/Core"
    static let interface = "org.gnome.Mutter.IdleMonitor"
    /// Milliseconds without input before the desktop says idle: shorter
    /// than the shortest `away.threshold` (30 s), which decides what counts
    /// as away; the stretch is dated from when input stopped.
    static let idleAfter: UInt64 = 30_000

    /// The watches' ids (0: none yet).
    private final class Watches: Sendable {
        let idle = Atomic<UInt32>(0), active = Atomic<UInt32>(0)
    }

    /// Follows the monitor; on `connection`'s thread. `report` gets the
    /// instant input stopped when the desktop goes idle, nil on the return.
    /// Throws when no monitor answers (not GNOME).
    static func follow(_ connection: BusConnection, report: @escaping @Sendable (Date?) -> Void) throws(BusError) {
        let watches = Watches()
        try connection.matchSignal(sender: nil, path: path, interface: interface, member: "WatchFired") { message in
            guard let id = message.readUInt32(), id != 0 else { return }
            if id == watches.idle.load(ordering: .acquiring) {
                report(Date().addingTimeInterval(-Double(idleAfter) / 1000))
                // Not from inside the signal's callback: a call of its own.
                connection.perform { connection in watchReturn(connection, watches) }
            } else if id == watches.active.load(ordering: .acquiring) {
                report(nil)
            }
        }
        let idle = try connection.call(destination: destination, path: path, interface: interface, member: "AddIdleWatch",
                                       arguments: { _ = $0.append(idleAfter) }) { $0.readUInt32() }
        watches.idle.store(idle, ordering: .releasing)
        let idleTime = try connection.call(destination: destination, path: path, interface: interface, member: "GetIdletime") { $0.readUInt64() }
        if idleTime >= idleAfter {
            report(Date().addingTimeInterval(-Double(idleTime) / 1000))
            watchReturn(connection, watches)
        }
    }

    /// What a source built on `environment` adds of the monitor, for
    /// `doctor` and the daemon's log: " and GNOME's idle monitor (...)"
    /// when one answers on the session bus, else why it is not followed.
    static func probe(_ environment: [String: String]) -> String {
        let not = "; not GNOME's idle monitor: "
        guard MutterIdleLink.namesBus(environment) else { return not + "no session bus" }
        let connection: BusConnection
        do { connection = try BusConnection(.session, environment: environment) } catch { return not + error.description }
        defer { connection.close() }
        let answers = try? connection.sync { () throws(BusError) -> UInt64 in
            try connection.call(destination: destination, path: path, interface: interface, member: "GetIdletime") { $0.readUInt64() }
        }
        return answers == nil ? not + "none answers on the session bus (not GNOME)"
            : " and GNOME's idle monitor (\(destination) on the session bus)"
    }

    private static func watchReturn(_ connection: BusConnection, _ watches: Watches) {
        let id = try? connection.call(destination: destination, path: path, interface: interface, member: "AddUserActiveWatch") { $0.readUInt32() }
        watches.active.store(id ?? 0, ordering: .releasing)
    }
}
#endif
