#if os(Linux)
import CRetimeBus
import FoundationEssentials

/// A borrowed sd-bus message: valid only on the connection's thread and
/// only during the callback that lent it (or until `release` of a
/// `retained()` copy). Reads and appends its basic values and containers.
public struct BusMessage: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    /// A reference of the caller's own, for a reply sent later: released
    /// by the reply (`BusConnection.reply`) or by `release()`.
    func retained() -> BusMessage { BusMessage(raw: rb_ref(raw)) }
    func release() { rb_unref(raw) }

    public var member: String { rb_member_of(raw).map { String(cString: $0) } ?? "" }

    public func readString() -> String? {
        var value: UnsafePointer<CChar>?
        guard rb_read_basic(raw, CChar(UInt8(ascii: "s")), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    public func readObjectPath() -> String? {
        var value: UnsafePointer<CChar>?
        guard rb_read_basic(raw, CChar(UInt8(ascii: "o")), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    public func readBool() -> Bool? {
        var value: Int32 = 0
        guard rb_read_basic(raw, CChar(UInt8(ascii: "b")), &value) > 0 else { return nil }
        return value != 0
    }

    public func readUInt32() -> UInt32? {
        var value: UInt32 = 0
        guard rb_read_basic(raw, CChar(UInt8(ascii: "u")), &value) > 0 else { return nil }
        return value
    }

    public func readUInt64() -> UInt64? {
        var value: UInt64 = 0
        guard rb_read_basic(raw, CChar(UInt8(ascii: "t")), &value) > 0 else { return nil }
        return value
    }

    /// The next element's type code and contents; nil at a container's end.
    public func peek() -> (type: Character, contents: String)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard rb_peek(raw, &type, &contents) > 0 else { return nil }
        return (Character(UnicodeScalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) } ?? "")
    }

    public func skip() { _ = rb_skip(raw) }

    /// Enters a container (`a`, `e`, `v`, `r`) of `contents`; false if the next element is not one.
    public func enter(_ type: Character, _ contents: String) -> Bool {
        rb_enter(raw, CChar(type.asciiValue ?? 0), contents) > 0
    }

    public func exit() { _ = rb_exit(raw) }

    @discardableResult
    public func append(_ value: String) -> Int32 {
        value.withCString { text in rb_append_basic(raw, CChar(UInt8(ascii: "s")), text) }
    }

    @discardableResult
    public func append(objectPath value: String) -> Int32 {
        value.withCString { text in rb_append_basic(raw, CChar(UInt8(ascii: "o")), text) }
    }

    @discardableResult
    public func append(_ value: Bool) -> Int32 {
        var flag: Int32 = value ? 1 : 0
        return rb_append_basic(raw, CChar(UInt8(ascii: "b")), &flag)
    }

    @discardableResult
    public func append(_ value: Int64) -> Int32 {
        var number = value
        return rb_append_basic(raw, CChar(UInt8(ascii: "x")), &number)
    }

    @discardableResult
    public func append(_ value: UInt64) -> Int32 {
        var number = value
        return rb_append_basic(raw, CChar(UInt8(ascii: "t")), &number)
    }

    @discardableResult
    public func append(_ value: UInt32) -> Int32 {
        var number = value
        return rb_append_basic(raw, CChar(UInt8(ascii: "u")), &number)
    }

    @discardableResult
    public func open(_ type: Character, _ contents: String) -> Int32 {
        rb_open_container(raw, CChar(type.asciiValue ?? 0), contents)
    }

    @discardableResult
    public func close() -> Int32 { rb_close_container(raw) }
}
#endif
