import RetimeShared
import FoundationEssentials

/// Encodes `Encodable` values straight into a `JSONValue` tree, as the
/// store's JSON text would read back: dates as `Timestamp` text, whole
/// doubles as integers, nil optionals left out.
public struct JSONValueEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Node()
        try ValueEncoder(root, codingPath: []).encodeValue(value)
        return try root.resolved(codingPath: [])
    }
}

/// A value under construction. Containers hand out child nodes and fill
/// them in later, so the tree is built in place and resolved at the end.
private final class Node {
    enum Content {
        case empty
        case value(JSONValue)
        case object([String: Node])
        case array([Node])
    }

    var content = Content.empty

    func resolved(codingPath: [any CodingKey]) throws -> JSONValue {
        switch content {
        case .empty:
            throw EncodingError.invalidValue(Any.self, EncodingError.Context(codingPath: codingPath, debugDescription: "nothing was encoded"))
        case .value(let value): return value
        case .object(let members): return .object(try members.mapValues { try $0.resolved(codingPath: codingPath) })
        case .array(let items): return .array(try items.map { try $0.resolved(codingPath: codingPath) })
        }
    }

    /// The members of an object, making this node one if it is not yet.
    func member(_ key: String) -> Node {
        var members: [String: Node] = [:]
        // Taken out of `content` before it changes: left there too, the
        // dictionary would be copied at each new member (quadratic).
        if case .object(let existing) = content { members = existing; content = .empty }
        if let node = members[key] {
            content = .object(members)
            return node
        }
        let node = Node()
        members[key] = node
        content = .object(members)
        return node
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object([:])
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func appended() -> Node {
        var items: [Node] = []
        // As for members: an array left in `content` too was copied at each
        // append, which made encoding a 10,000-target block take 0.6 s.
        if case .array(let existing) = content { items = existing; content = .empty }
        let node = Node()
        items.append(node)
        content = .array(items)
        return node
    }

    var count: Int {
        if case .array(let items) = content { return items.count }
        return 0
    }
}

/// Encodes into one node; also its own single-value container.
private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: Node, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    func encodeValue<T: Encodable>(_ value: T) throws {
        // A type comparison first: a plain `as? Date` of every value would ask
        // the runtime about bridging for each one.
        if T.self == Date.self, let date = value as? Date {
            node.content = .value(.string(Timestamp.format(date)))
        } else {
            try value.encode(to: self)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedNodes<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedNodes(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: Single value

    private func set(_ value: JSONValue) { node.content = .value(value) }

    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.bool(value)) }
    func encode(_ value: String) throws { set(.string(value)) }

    func encode(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        // As JSON text would read back: 3.0 is written "3" and read as an integer.
        if value == value.rounded(), abs(value) < 9.2e18 { return set(.int(Int64(value))) }
        set(.double(value))
    }

    func encode(_ value: Float) throws { try encode(Double(value)) }
    func encode(_ value: Int) throws { try integer(value) }
    func encode(_ value: Int8) throws { try integer(value) }
    func encode(_ value: Int16) throws { try integer(value) }
    func encode(_ value: Int32) throws { try integer(value) }
    func encode(_ value: Int64) throws { try integer(value) }
    func encode(_ value: UInt) throws { try integer(value) }
    func encode(_ value: UInt8) throws { try integer(value) }
    func encode(_ value: UInt16) throws { try integer(value) }
    func encode(_ value: UInt32) throws { try integer(value) }
    func encode(_ value: UInt64) throws { try integer(value) }
    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }

    private func integer<I: FixedWidthInteger>(_ value: I) throws {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) does not fit 64 signed bits"))
        }
        set(.int(exact))
    }
}

/// An object's members, by key.
private struct KeyedNodes<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> ValueEncoder {
        ValueEncoder(node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try child(key).encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

/// An array's items, in order.
private struct UnkeyedNodes: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    var count: Int { node.count }

    private func next() -> ValueEncoder {
        let index = node.count
        return ValueEncoder(node.appended(), codingPath: codingPath + [IndexKey(index)])
    }

    mutating func encodeNil() throws { try next().encodeNil() }
    mutating func encode(_ value: Bool) throws { try next().encode(value) }
    mutating func encode(_ value: String) throws { try next().encode(value) }
    mutating func encode(_ value: Double) throws { try next().encode(value) }
    mutating func encode(_ value: Float) throws { try next().encode(value) }
    mutating func encode(_ value: Int) throws { try next().encode(value) }
    mutating func encode(_ value: Int8) throws { try next().encode(value) }
    mutating func encode(_ value: Int16) throws { try next().encode(value) }
    mutating func encode(_ value: Int32) throws { try next().encode(value) }
    mutating func encode(_ value: Int64) throws { try next().encode(value) }
    mutating func encode(_ value: UInt) throws { try next().encode(value) }
    mutating func encode(_ value: UInt8) throws { try next().encode(value) }
    mutating func encode(_ value: UInt16) throws { try next().encode(value) }
    mutating func encode(_ value: UInt32) throws { try next().encode(value) }
    mutating func encode(_ value: UInt64) throws { try next().encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}
