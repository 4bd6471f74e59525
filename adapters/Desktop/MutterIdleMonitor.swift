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
    /// Follows it again whenever its name gets a new owner: gnome-shell
    /// starts after the user's bus (a daemon started at login is there
    /// first) and may restart under it; a monitor gone drops its word.
    /// Throws only when the bus refuses the signals' matches.
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
        try connection.matchSignal(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                   member: "NameOwnerChanged") { message in
            guard message.readString() == destination, message.readString() != nil, let owner = message.readString() else { return }
            // The old monitor's watches and word are gone with it.
            watches.idle.store(0, ordering: .releasing)
            watches.active.store(0, ordering: .releasing)
            report(nil)
            guard !owner.isEmpty else { return }
            connection.perform { connection in watchIdle(connection, watches, report: report) }
        }
        watchIdle(connection, watches, report: report)
    }

    /// Asks the monitor for the idle watch, and whether input has already
    /// stopped; nothing when no monitor answers (not GNOME, or not yet).
    private static func watchIdle(_ connection: BusConnection, _ watches: Watches, report: @escaping @Sendable (Date?) -> Void) {
        guard let idle = try? connection.call(destination: destination, path: path, interface: interface, member: "AddIdleWatch",
                                              arguments: { _ = $0.append(idleAfter) }, read: { $0.readUInt32() }) else { return }
        watches.idle.store(idle, ordering: .releasing)
        guard let idleTime = try? connection.call(destination: destination, path: path, interface: interface, member: "GetIdletime",
                                                  read: { $0.readUInt64() }) else { return }
        if idleTime >= idleAfter {
            report(Date().addingTimeInterval(-Double(idleTime) / 1000))
            watchReturn(connection, watches)
        }
    }

    /// What a source built on `environment` adds of the monitor, for
    /// `doctor` and the daemon's log: " and GNOME's idle monitor (...)"
    /// when one answers on the session bus, else why it is not followed.
    static func probe(_ environment: [String: String]) -> String {
        // In parentheses: other sources' names may follow ("... and the compositor's ...").
        let not = { (why: String) in " (not GNOME's idle monitor: \(why))" }
        guard MutterIdleLink.namesBus(environment) else { return not("no session bus") }
        let connection: BusConnection
        do { connection = try BusConnection(.session, environment: environment) } catch { return not(error.description) }
        defer { connection.close() }
        let answers = try? connection.sync { () throws(BusError) -> UInt64 in
            try connection.call(destination: destination, path: path, interface: interface, member: "GetIdletime") { $0.readUInt64() }
        }
        return answers == nil ? not("none answers on the session bus (not GNOME)")
            : " and GNOME's idle monitor (\(destination) on the session bus)"
    }

    private static func watchReturn(_ connection: BusConnection, _ watches: Watches) {
        let id = try? connection.call(destination: destination, path: path, interface: interface, member: "AddUserActiveWatch") { $0.readUInt32() }
        watches.active.store(id ?? 0, ordering: .releasing)
    }
}
#endif
