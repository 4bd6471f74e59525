#if os(Linux)
import CRetimeBus
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc

extension BusConnection {
    /// Runs `work` on the connection's thread and waits for it (never
    /// from that thread). Throws if the connection closes first.
    public func sync<Value: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> Value) throws(BusError) -> Value {
        let result = Mutex<Result<Value, BusError>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        let queued = perform { _ in
            let value: Result<Value, BusError>
            do throws(BusError) { value = .success(try work()) } catch { value = .failure(error) }
            result.withLock { $0 = value }
            semaphore.signal()
        }
        guard queued else { throw BusError("the bus closed") }
        semaphore.wait()
        guard let outcome = result.withLock({ $0 }) else { throw BusError("the bus closed") }
        return try outcome.get()
    }

    /// Calls a method and waits for its reply (on the connection's thread,
    /// or before its loop has anything to do): `read` reads the reply.
    public func call<Value>(destination: String, path: String, interface: String, member: String,
                            arguments: (BusMessage) -> Void = { _ in }, timeout: Duration = .seconds(5),
                            read: (BusMessage) -> Value?) throws(BusError) -> Value {
        var message: UnsafeMutableRawPointer?
        let made = rb_new_call(bus, destination, path, interface, member, &message)
        guard made >= 0, let message else { throw BusError("cannot call \(member) (\(String(cString: strerror(-made))))") }
        defer { rb_unref(message) }
        arguments(BusMessage(raw: message))
        var reply: UnsafeMutableRawPointer?
        var why = [CChar](repeating: 0, count: 512)
        let usec = UInt64(timeout.components.seconds) * 1_000_000
        guard rb_call(bus, message, usec, &reply, &why, why.count) >= 0, let reply else {
            throw BusError("\(member) failed: " + String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { rb_unref(reply) }
        guard let value = read(BusMessage(raw: reply)) else { throw BusError("\(member) answered with an unexpected type") }
        return value
    }

    /// Reads a property (org.freedesktop.DBus.Properties.Get) of `type`.
    public func property<Value>(destination: String, path: String, interface: String, name: String, type: String,
                                read: (BusMessage) -> Value?) throws(BusError) -> Value {
        try call(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                 arguments: { $0.append(interface); $0.append(name) }) { reply in
            guard reply.enter("v", type) else { return nil }
            defer { reply.exit() }
            return read(reply)
        }
    }
}
#endif
