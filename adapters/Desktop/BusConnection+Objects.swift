#if os(Linux)
import CRetimeBus
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc

/// One member of an exported interface.
public enum BusMember: Sendable {
    case method(String, arguments: String, result: String = "")
    /// A property that emits PropertiesChanged.
    case property(String, type: String)
    case signal(String, type: String)
}

/// What an exported object answers: a property's value, a method call.
/// Both run on the connection's thread and must not block it for long.
public struct BusObjectHandlers: Sendable {
    /// Appends the property's value; false if it has none.
    public var get: @Sendable (_ name: String, _ reply: BusMessage) -> Bool
    /// Handles a call; the reply goes through `BusConnection.reply`, now or later.
    public var call: @Sendable (_ call: BusReplyToken) -> Void

    public init(get: @escaping @Sendable (String, BusMessage) -> Bool, call: @escaping @Sendable (BusReplyToken) -> Void) {
        self.get = get
        self.call = call
    }
}

/// A method call waiting for its reply: its message is held until the
/// reply is sent (once) on the connection's thread, where it is also
/// released: sd-bus's reference counts are not atomic.
public final class BusReplyToken: @unchecked Sendable {
    let message: BusMessage
    public let member: String
    /// The arguments, read on the connection's thread before anything else.
    public let arguments: [BusArgument]
    private let connection: BusConnection
    /// Touched only on the connection's thread.
    private var released = false

    init(message: BusMessage, arguments: [BusArgument], connection: BusConnection) {
        self.message = message.retained()
        member = message.member
        self.arguments = arguments
        self.connection = connection
    }

    /// Releases the call's message (on the connection's thread, after its reply).
    func release() {
        guard !released else { return }
        released = true
        message.release()
    }

    deinit {
        guard !released else { return }
        // Never replied to: released on the connection's thread (or now, if its thread has ended).
        let message = message
        if !connection.perform({ _ in message.release() }) { message.release() }
    }
}

/// A basic argument of a method call.
public enum BusArgument: Sendable, Hashable {
    case string(String), uint32(UInt32), uint64(UInt64), bool(Bool)
}

/// The context a C callback reaches: the handlers, held by the connection.
private final class ObjectContext {
    let handlers: BusObjectHandlers
    /// Unowned: the connection keeps this context, not the other way round.
    unowned let connection: BusConnection
    init(_ handlers: BusObjectHandlers, connection: BusConnection) {
        self.handlers = handlers
        self.connection = connection
    }
}

private final class SignalContext {
    let handler: @Sendable (BusMessage) -> Void
    init(_ handler: @escaping @Sendable (BusMessage) -> Void) { self.handler = handler }
}

extension BusConnection {
    /// Exports an object (call on the connection's thread, e.g. in `perform`).
    public func export(path: String, interface: String, members: [BusMember], handlers: BusObjectHandlers) throws(BusError) {
        let context = ObjectContext(handlers, connection: self)
        retain(context)
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        func copy(_ text: String) -> UnsafePointer<CChar> {
            let pointer = strdup(text)!
            strings.append(pointer)
            return UnsafePointer(pointer)
        }
        let table = members.map { member -> rb_member in
            switch member {
            case .method(let name, let arguments, let result):
                rb_member(kind: 0, name: copy(name), signature: copy(arguments), result: copy(result))
            case .property(let name, let type):
                rb_member(kind: 1, name: copy(name), signature: copy(type), result: nil)
            case .signal(let name, let type):
                rb_member(kind: 2, name: copy(name), signature: copy(type), result: nil)
            }
        }
        let result = table.withUnsafeBufferPointer { buffer in
            rb_add_object(bus, path, interface, buffer.baseAddress, buffer.count, { context, name, reply in
                let object = Unmanaged<ObjectContext>.fromOpaque(context!).takeUnretainedValue()
                return object.handlers.get(String(cString: name!), BusMessage(raw: reply!)) ? 1 : -EINVAL
            }, { context, message in
                let object = Unmanaged<ObjectContext>.fromOpaque(context!).takeUnretainedValue()
                let call = BusMessage(raw: message!)
                object.handlers.call(BusReplyToken(message: call, arguments: BusConnection.arguments(of: call), connection: object.connection))
                return 1
            }, Unmanaged.passUnretained(context).toOpaque())
        }
        guard result >= 0 else { throw BusError("cannot export \(path) (\(String(cString: strerror(-result))))") }
    }

    /// Asks the bus for `name`; throws if another connection owns it.
    public func requestName(_ name: String) throws(BusError) {
        let result = rb_request_name(bus, name)
        guard result >= 0 else { throw BusError("cannot own \(name) (\(String(cString: strerror(-result))))") }
    }

    /// Replies to a call with no values, or with a D-Bus error. On any thread.
    public func reply(_ token: BusReplyToken, error: (name: String, message: String)? = nil) {
        perform { _ in
            if let error {
                _ = rb_reply_error(token.message.raw, error.name, error.message)
            } else {
                _ = rb_reply_empty(token.message.raw)
            }
            token.release()
        }
    }

    /// Replies to a call with the values `values` appends. On any thread.
    public func reply(_ token: BusReplyToken, values: @escaping @Sendable (BusMessage) -> Void) {
        perform { connection in
            var reply: UnsafeMutableRawPointer?
            guard rb_new_reply(token.message.raw, &reply) >= 0, let reply else { return }
            values(BusMessage(raw: reply))
            _ = rb_send(connection.bus, reply)
            rb_unref(reply)
            token.release()
        }
    }

    /// Emits PropertiesChanged for `names` of the object. On any thread.
    public func emitChanged(path: String, interface: String, names: [String]) {
        guard !names.isEmpty else { return }
        perform { connection in
            var pointers: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
            _ = rb_emit_changed(connection.bus, path, interface, &pointers)
            pointers.forEach { free($0) }
        }
    }

    /// Calls `handler` for every signal that matches (nil: any). On the connection's thread.
    public func matchSignal(sender: String?, path: String?, interface: String?, member: String?,
                            handler: @escaping @Sendable (BusMessage) -> Void) throws(BusError) {
        let context = SignalContext(handler)
        retain(context)
        let result = rb_match_signal(bus, sender, path, interface, member, { context, message in
            Unmanaged<SignalContext>.fromOpaque(context!).takeUnretainedValue().handler(BusMessage(raw: message!))
        }, Unmanaged.passUnretained(context).toOpaque())
        guard result >= 0 else { throw BusError("cannot follow the signal \(member ?? "*") (\(String(cString: strerror(-result))))") }
    }

    /// Emits a signal built by `arguments`. On any thread.
    public func emitSignal(path: String, interface: String, member: String, arguments: @escaping @Sendable (BusMessage) -> Void) {
        perform { connection in
            var message: UnsafeMutableRawPointer?
            guard rb_new_signal(connection.bus, path, interface, member, &message) >= 0, let message else { return }
            arguments(BusMessage(raw: message))
            _ = rb_send(connection.bus, message)
            rb_unref(message)
        }
    }

    /// The basic arguments of a call, in order (containers are skipped).
    static func arguments(of call: BusMessage) -> [BusArgument] {
        var values: [BusArgument] = []
        while let (type, _) = call.peek() {
            switch type {
            case "s": if let text = call.readString() { values.append(.string(text)) }
            case "u": if let number = call.readUInt32() { values.append(.uint32(number)) }
            case "t": if let number = call.readUInt64() { values.append(.uint64(number)) }
            case "b": if let flag = call.readBool() { values.append(.bool(flag)) }
            default: call.skip()
            }
        }
        return values
    }
}
#endif
