#if os(Linux)
import Adapters
import Domain

/// `doctor`'s desktop finding (docs/desktop.md): whether a session bus is
/// here and who owns `dev.retime.Retime1` on it (the daemon). It is not
/// needed: without it the rest of retime works, so it is `ok` with the
/// reason, or a warning when the bus is there but the name not. Whether
/// logind answers (sleep, lock and idle) is the "away time" finding
/// (`PresenceHealth`).
struct DesktopHealth: HealthInspector {
    let environment: [String: String]

    func inspect(repairing: Bool) async -> [HealthCheck] {
        [sessionBus()]
    }

    private func sessionBus() -> HealthCheck {
        guard let address = DesktopBusSession.address(environment) else {
            return HealthCheck(name: "session bus", status: .ok,
                               detail: "none here ($DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no D-Bus name; 'status --follow' still serves a bar")
        }
        let connection: BusConnection
        do { connection = try BusConnection(.session, environment: environment) } catch {
            return HealthCheck(name: "session bus", status: .warning, detail: "\(address) cannot be reached: \(error)")
        }
        defer { connection.close() }
        let owned = try? connection.sync { () throws(BusError) -> Bool in
            try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                member: "NameHasOwner", arguments: { $0.append(RetimeBusName.name) }) { $0.readBool() }
        }
        guard owned == true else {
            return HealthCheck(name: "session bus", status: .warning,
                               detail: "reached, but nobody owns \(RetimeBusName.name): the daemon owns it while it runs ('retime daemon status')")
        }
        return HealthCheck(name: "session bus", status: .ok, detail: "the daemon owns \(RetimeBusName.name)")
    }
}
#endif
