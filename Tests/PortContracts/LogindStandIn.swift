#if os(Linux)
import Adapters
import Domain
import Foundation
import Synchronization

/// A stand-in `org.freedesktop.login1` on a test's own system-like bus:
/// the Manager (`GetUser`, `GetSession`, `PreparingForSleep`,
/// `PrepareForSleep`), user 0's User object (`Display`) and one Session
/// (`IdleHint`, `IdleSinceHint`, `LockedHint`, `Lock`, `Unlock`), whose
/// state a test sets; each change is sent as logind sends it. Shared by
/// the adapter's tests and the daemon's end-to-end tests.
public final class LogindStandIn: Sendable {
    public static let sessionPath = "/org/freedesktop/login1/session/_31"
    public static let userPath = "/org/freedesktop/login1/user/_0"

    struct Flags: Sendable {
        var asleep = false, locked = false, idle = false
        var idleSince: UInt64 = 0
    }

    public let connection: BusConnection
    private let flags = FlagsBox()

    final class FlagsBox: Sendable {
        let value = Mutex(Flags())
        func withLock<T>(_ body: (inout Flags) -> T) -> T { value.withLock { body(&$0) } }
    }

    public init(address: String, withSession: Bool = true) throws {
        connection = try BusConnection(.system, environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        let connection = connection, flags = flags
        try Self.onThread(connection) { () throws(BusError) in
            try connection.export(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", members: [
                .method("GetUser", arguments: "u", result: "o"), .method("GetSession", arguments: "s", result: "o"),
                .property("PreparingForSleep", type: "b"), .signal("PrepareForSleep", type: "b"),
            ], handlers: BusObjectHandlers(get: { _, reply in
                reply.append(flags.withLock { $0.asleep })
                return true
            }, call: { token in
                switch token.member {
                case "GetUser": connection.reply(token) { $0.append(objectPath: Self.userPath) }
                default: connection.reply(token) { $0.append(objectPath: Self.sessionPath) }
                }
            }))
            try connection.export(path: Self.userPath, interface: "org.freedesktop.login1.User", members: [.property("Display", type: "(so)")],
                                  handlers: BusObjectHandlers(get: { _, reply in
                reply.open("r", "so")
                reply.append(withSession ? "31" : "")
                reply.append(objectPath: withSession ? Self.sessionPath : "/")
                reply.close()
                return true
            }, call: { _ in }))
            try connection.export(path: Self.sessionPath, interface: "org.freedesktop.login1.Session", members: [
                .property("IdleHint", type: "b"), .property("IdleSinceHint", type: "t"), .property("LockedHint", type: "b"),
                .signal("Lock", type: ""), .signal("Unlock", type: ""),
            ], handlers: BusObjectHandlers(get: { name, reply in
                let current = flags.withLock { $0 }
                switch name {
                case "IdleHint": reply.append(current.idle)
                case "IdleSinceHint": reply.append(current.idleSince)
                default: reply.append(current.locked)
                }
                return true
            }, call: { _ in }))
            try connection.requestName("org.freedesktop.login1")
        }
    }

    /// Makes the machine's state `state`, sending what logind sends for each flag that changes.
    public func set(_ state: PresenceChange.State) async throws {
        let old = flags.withLock { $0 }
        var next = Flags(asleep: state == .asleep, locked: state == .locked, idle: state == .idle, idleSince: old.idleSince)
        if next.idle && !old.idle { next.idleSince = UInt64(Date().addingTimeInterval(-30).timeIntervalSince1970 * 1_000_000) }
        let new = next
        flags.withLock { $0 = new }
        let connection = connection
        if new.locked != old.locked {
            connection.emitSignal(path: Self.sessionPath, interface: "org.freedesktop.login1.Session", member: new.locked ? "Lock" : "Unlock") { _ in }
        }
        if new.idle != old.idle {
            connection.emitChanged(path: Self.sessionPath, interface: "org.freedesktop.login1.Session", names: ["IdleHint", "IdleSinceHint"])
        }
        if new.asleep != old.asleep {
            connection.emitSignal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep") {
                $0.append(new.asleep)
            }
        }
        // Sent once the connection's thread has run what was queued.
        try Self.onThread(connection) { () throws(BusError) in }
    }

    public func stop() { connection.close() }

    public static func onThread(_ connection: BusConnection, _ work: @escaping @Sendable () throws(BusError) -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<BusError?>(nil)
        connection.perform { _ in
            do throws(BusError) { try work() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
#endif
