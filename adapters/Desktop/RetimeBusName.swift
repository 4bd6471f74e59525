#if os(Linux)
import FoundationEssentials
import Synchronization

/// What the daemon's D-Bus object says of the session: the properties of
/// `dev.retime.Retime1` (docs/desktop.md, "D-Bus").
public struct RetimeBusProperties: Sendable, Hashable {
    public var active = false
    /// The group's name ("" with no session, or once the group is deleted).
    public var group = ""
    /// "work", "break", "long break" in a cycle (as `status` names them);
    /// "work" in any other session; "" with none.
    public var phase = ""
    public var endsAt: Date?
    /// Left at `at` (nil: open-ended, or no session).
    public var remaining: TimeInterval?
    public var strict = false
    public var paused = false
    /// When `remaining` was read: a running session's is counted on from it.
    public var at = Date(timeIntervalSince1970: 0)

    public init() {}

    /// Seconds left now: counted down while it runs, as read while paused.
    func remaining(now: Date) -> Int64 {
        guard active, let remaining else { return -1 }
        let left = paused ? remaining : remaining - now.timeIntervalSince(at)
        return Int64(max(0, left).rounded(.up))
    }

    /// The properties whose value differs from `other`'s.
    func changes(from other: RetimeBusProperties) -> [String] {
        var names: [String] = []
        if active != other.active { names.append("Active") }
        if group != other.group { names.append("Group") }
        if phase != other.phase { names.append("Phase") }
        if endsAt != other.endsAt { names.append("EndsAt") }
        if remaining(now: at) != other.remaining(now: at) || paused != other.paused || active != other.active {
            names.append("Remaining")
        }
        if strict != other.strict { names.append("Strict") }
        if paused != other.paused { names.append("Paused") }
        return names
    }
}

/// A method of `dev.retime.Retime1`, as the daemon runs it.
public enum RetimeBusCall: Sendable, Hashable {
    /// `Start(s group, u seconds)`: "" is the default group, 0 open-ended.
    case start(group: String, seconds: UInt32)
    case stop, pause, resume
}

/// The daemon's name on the session bus: `dev.retime.Retime1` with its one
/// object. Properties come from the last `publish`; methods go to `handle`
/// off the bus's thread, whose error code (a `RetimeError`'s, e.g.
/// `session.strict`) becomes the D-Bus error `dev.retime.Retime1.Error.Strict`.
public final class RetimeBusName: Sendable {
    public static let name = "dev.retime.Retime1"
    public static let path = "/dev/retime/Retime1"
    public static let interface = "dev.retime.Retime1"

    private let connection: BusConnection
    private let properties = PropertiesBox()

    /// Connects to the session bus, exports the object and owns the name.
    public init(environment: [String: String], handle: @escaping @Sendable (RetimeBusCall) async -> (code: String, message: String)?) throws(BusError) {
        connection = try BusConnection(.session, environment: environment)
        let properties = properties, connection = connection
        let handlers = BusObjectHandlers(get: { name, reply in
            let now = Date()
            let current = properties.value.withLock { $0 }
            switch name {
            case "Active": reply.append(current.active)
            case "Group": reply.append(current.group)
            case "Phase": reply.append(current.phase)
            case "EndsAt": reply.append(Int64(current.endsAt.map { $0.timeIntervalSince1970.rounded(.down) } ?? 0))
            case "Remaining": reply.append(current.remaining(now: now))
            case "Strict": reply.append(current.strict)
            case "Paused": reply.append(current.paused)
            default: return false
            }
            return true
        }, call: { token in
            guard let call = Self.call(token) else {
                connection.reply(token, error: ("org.freedesktop.DBus.Error.InvalidArgs", "unknown method or arguments"))
                return
            }
            // The use cases are async and may take a while (a shield's
            // round trip): never on the bus's thread.
            Task.detached {
                let failure = await handle(call)
                connection.reply(token, error: failure.map { (Self.errorName($0.code), $0.message) })
            }
        })
        do throws(BusError) {
            try Self.export(connection, handlers: handlers)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Sets the properties; emits PropertiesChanged for those that differ.
    public func publish(_ new: RetimeBusProperties) {
        let changed = properties.value.withLock { current -> [String] in
            defer { current = new }
            return new.changes(from: current)
        }
        connection.emitChanged(path: Self.path, interface: Self.interface, names: changed)
    }

    /// Calls `handler` once if the session bus goes away under the name
    /// (the bus's daemon ended); this connection is then done with, and
    /// owning the name again takes a new `RetimeBusName`.
    public func onLost(_ handler: @escaping @Sendable () -> Void) { connection.onLost(handler) }

    /// Releases the name and closes the connection.
    public func close() { connection.close() }

    /// The D-Bus error for a `RetimeError` code: its parts capitalised and
    /// joined, the `session.` of the session's own errors left out:
    /// `session.strict` -> `dev.retime.Retime1.Error.Strict`,
    /// `group.notFound` -> `dev.retime.Retime1.Error.GroupNotFound`.
    public static func errorName(_ code: String) -> String {
        var parts = code.split(separator: ".").map(String.init)
        if parts.count > 1, parts.first == "session" { parts.removeFirst() }
        let element = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return interface + ".Error." + (element.isEmpty ? "Failed" : element)
    }

    private static func call(_ token: BusReplyToken) -> RetimeBusCall? {
        switch (token.member, token.arguments) {
        case ("Start", let arguments):
            guard arguments.count == 2, case .string(let group) = arguments[0], case .uint32(let seconds) = arguments[1] else { return nil }
            return .start(group: group, seconds: seconds)
        case ("Stop", []): return .stop
        case ("Pause", []): return .pause
        case ("Resume", []): return .resume
        default: return nil
        }
    }

    private static func export(_ connection: BusConnection, handlers: BusObjectHandlers) throws(BusError) {
        // On the connection's thread, as every use of it.
        try connection.sync { () throws(BusError) in
            try connection.export(path: path, interface: interface, members: [
                .property("Active", type: "b"), .property("Group", type: "s"), .property("Phase", type: "s"),
                .property("EndsAt", type: "x"), .property("Remaining", type: "x"), .property("Strict", type: "b"),
                .property("Paused", type: "b"),
                .method("Start", arguments: "su"), .method("Stop", arguments: ""), .method("Pause", arguments: ""),
                .method("Resume", arguments: ""),
            ], handlers: handlers)
            try connection.requestName(name)
        }
    }
}
#endif

#if os(Linux)
/// The properties as last published, shared with the bus's thread.
private final class PropertiesBox: Sendable {
    let value = Mutex(RetimeBusProperties())
}
#endif
