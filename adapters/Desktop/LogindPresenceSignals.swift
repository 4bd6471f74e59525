#if os(Linux)
import Domain
import FoundationEssentials
import Synchronization
import Glibc

/// The `PresenceSignals` port over logind on the system bus
/// (`DBUS_SYSTEM_BUS_ADDRESS`, else the default socket): the Manager's
/// `PrepareForSleep(b)`, and the user's own session's `Lock`/`Unlock`
/// signals and its `IdleHint`, `IdleSinceHint` and `LockedHint` properties.
/// The session is `$XDG_SESSION_ID`'s, else the user's `Display` session
/// (a user daemon runs outside any session).
public struct LogindPresenceSignals: PresenceSignals {
    static let destination = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"

    let environment: [String: String]
    let uid: UInt32

    public init(environment: [String: String], uid: UInt32 = getuid()) {
        self.environment = environment
        self.uid = uid
    }

    public func availability() async -> PresenceAvailability {
        do throws(BusError) {
            let connection = try BusConnection(.system, environment: environment)
            defer { connection.close() }
            let environment = environment, uid = uid
            let path = try connection.sync { () throws(BusError) -> String in
                try Self.sessionPath(connection, environment: environment, uid: uid)
            }
            return .available(source: "logind (session \(path))" + (Self.desktopMonitorAnswers(environment) ? " with GNOME's idle monitor" : ""))
        } catch {
            return .unavailable(reason: error.description)
        }
    }

    /// Whether GNOME's idle monitor answers on the session bus (for `doctor`:
    /// `changes()` follows it beside logind).
    static func desktopMonitorAnswers(_ environment: [String: String]) -> Bool {
        guard namesSessionBus(environment), let desktop = try? BusConnection(.session, environment: environment) else { return false }
        defer { desktop.close() }
        return (try? desktop.sync { () throws(BusError) -> UInt64 in
            try desktop.call(destination: MutterIdleMonitor.destination, path: MutterIdleMonitor.path, interface: MutterIdleMonitor.interface,
                             member: "GetIdletime") { $0.readUInt64() }
        }) != nil
    }

    /// Only a bus `environment` names: sd-bus's fallback would read the
    /// process's own variables (a test's host), which it was not given.
    static func namesSessionBus(_ environment: [String: String]) -> Bool {
        environment["DBUS_SESSION_BUS_ADDRESS"].map { !$0.isEmpty } ?? false || environment["XDG_RUNTIME_DIR"].map { !$0.isEmpty } ?? false
    }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceChange.self, bufferingPolicy: .unbounded)
        let connection: BusConnection
        do { connection = try BusConnection(.system, environment: environment) } catch {
            continuation.finish()
            return stream
        }
        let follower = PresenceFollower(continuation: continuation)
        let environment = environment, uid = uid
        connection.perform { connection in
            do throws(BusError) {
                try Self.follow(connection, follower: follower, environment: environment, uid: uid)
            } catch {
                continuation.finish()
            }
        }
        // The desktop's own idle time, where its monitor answers on the
        // session bus (GNOME): idle when either says so (docs/desktop.md).
        let desktop = Self.namesSessionBus(environment) ? try? BusConnection(.session, environment: environment) : nil
        desktop?.perform { desktop in
            do throws(BusError) {
                try MutterIdleMonitor.follow(desktop) { since in follower.update { $0.desktopIdleSince = since } }
            } catch {
                // Not GNOME: logind's IdleHint alone.
            }
        }
        continuation.onTermination = { _ in
            // Not on the bus's thread: close waits for it.
            Task.detached { connection.close(); desktop?.close() }
        }
        return stream
    }

    /// Subscribes first, then reads the state, so no change falls between.
    private static func follow(_ connection: BusConnection, follower: PresenceFollower, environment: [String: String], uid: UInt32) throws(BusError) {
        try connection.matchSignal(sender: destination, path: managerPath, interface: manager, member: "PrepareForSleep") { message in
            guard let sleeping = message.readBool() else { return }
            follower.update { $0.asleep = sleeping }
        }
        let path = try sessionPath(connection, environment: environment, uid: uid)
        try connection.matchSignal(sender: destination, path: path, interface: session, member: "Lock") { _ in
            follower.update { $0.locked = true }
        }
        try connection.matchSignal(sender: destination, path: path, interface: session, member: "Unlock") { _ in
            follower.update { $0.locked = false }
        }
        try connection.matchSignal(sender: destination, path: path, interface: "org.freedesktop.DBus.Properties",
                                   member: "PropertiesChanged") { message in
            guard message.readString() == session else { return }
            let changed = SessionProperties.read(changed: message)
            follower.update { state in
                if let idle = changed.idle { state.idle = idle }
                if let since = changed.idleSince { state.idleSince = since }
                if let locked = changed.locked { state.locked = locked }
            }
        }
        var state = PresenceFollower.Flags()
        state.asleep = (try? connection.property(destination: destination, path: managerPath, interface: manager, name: "PreparingForSleep",
                                                  type: "b") { $0.readBool() }) ?? false
        state.idle = try connection.property(destination: destination, path: path, interface: session, name: "IdleHint", type: "b") { $0.readBool() }
        state.idleSince = try connection.property(destination: destination, path: path, interface: session, name: "IdleSinceHint",
                                                  type: "t") { $0.readUInt64() }
        state.locked = try connection.property(destination: destination, path: path, interface: session, name: "LockedHint",
                                               type: "b") { $0.readBool() }
        follower.begin(state)
    }

    /// The object path of the user's session.
    static func sessionPath(_ connection: BusConnection, environment: [String: String], uid: UInt32) throws(BusError) -> String {
        if let id = environment["XDG_SESSION_ID"], !id.isEmpty {
            return try connection.call(destination: destination, path: managerPath, interface: manager, member: "GetSession",
                                       arguments: { $0.append(id) }) { $0.readObjectPath() }
        }
        let user = try connection.call(destination: destination, path: managerPath, interface: manager, member: "GetUser",
                                       arguments: { $0.append(uid) }) { $0.readObjectPath() }
        let display = try connection.property(destination: destination, path: user, interface: "org.freedesktop.login1.User",
                                              name: "Display", type: "(so)") { reply -> String? in
            guard reply.enter("r", "so") else { return nil }
            defer { reply.exit() }
            _ = reply.readString()
            return reply.readObjectPath()
        }
        // logind's "no session": an empty id and the path "/".
        guard display != "/" else { throw BusError("logind knows no graphical session of user \(uid)") }
        return display
    }
}

#endif
