import Domain
import FoundationEssentials
import JSONDocument

/// A UserDefaults-like store shared by every retime process: named suites,
/// each a set of JSON values by key. Reads see either the old or the new
/// content of a suite, never a mixture; `update` is an atomic
/// read-modify-write, also across processes.
///
/// The contract every adapter keeps is `KeyValueStoreContract`. Typed
/// `Codable` access is built on these primitives (see the extension below).
public protocol KeyValueStore: Sendable {
    /// The values stored in `suite` (defaults not included); empty if the
    /// suite was never written.
    func values(of suite: String) throws -> [String: JSONValue]

    /// The value stored under `key` (no default): `values(of:)[key]`, for
    /// no more work than that, and less where a store can read one value
    /// alone (a shared folder's snapshot).
    func storedValue(forKey key: String, in suite: String) throws -> JSONValue?

    /// `values(of:)` with each JSON object narrowed to its members named in
    /// `members` (any other value as it is), for no more work than that,
    /// and less where a store can read those members alone (a shared
    /// folder's snapshot: 1,000 groups' names without their targets).
    func values(of suite: String, members: Set<String>) throws -> [String: JSONValue]

    /// `storedValue(forKey:in:)` narrowed so (a group's name without its targets).
    func storedValue(forKey key: String, in suite: String, members: Set<String>) throws -> JSONValue?

    /// Runs `body` on the suite's current values under an exclusive lock and
    /// stores what it leaves, if anything changed. If `body` throws, nothing
    /// is stored and the error is rethrown. Readers see the new values once
    /// it returns; `durability` says whether a crash may still undo them.
    /// `body` depends on nothing but the values it is given: a store that
    /// ran it on values it kept, and finds them not what is stored, runs it
    /// again on those (`ReplicatedLogStore.writeFromSnapshot`).
    func update<Result>(_ suite: String, durability: WriteDurability,
                        _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result

    /// Values returned for keys the suite does not hold. Never persisted.
    func register(defaults: [String: JSONValue], in suite: String)

    /// The defaults registered for `suite`.
    func defaults(of suite: String) -> [String: JSONValue]

    /// Names of suites changed through this store, as they change (in-process).
    func changes() -> AsyncStream<String>

    /// Forgets the earlier versions a store keeps of `suite` (its backups),
    /// so a secret removed from it is gone from the disk too.
    func discardBackups(of suite: String) throws

    /// Values of `key` that another value replaced without having seen
    /// them: only a store shared by several devices has any (two devices
    /// wrote it before either saw the other's write). Oldest first.
    func unseen(_ suite: String, key: String) throws -> [JSONValue]

    /// Records that an unseen value of `key` has been dealt with.
    func settle(_ suite: String, key: String, value: JSONValue) throws

    /// The last value `key` held, also once it was removed, when the store
    /// keeps it (a shared folder's log does); nil otherwise.
    func lastValue(_ suite: String, key: String) throws -> JSONValue?

    /// The last value `key` held when another device's change removed it
    /// (a session stopped elsewhere, whose block this machine may still
    /// hold); nil while `key` holds a value, when this device removed it,
    /// or when the store cannot tell.
    func valueRemovedElsewhere(_ suite: String, key: String) throws -> JSONValue?

    /// Whether the store's records show the thing `identity` names, once
    /// held by `key`, ended or removed for good (a shared folder's slot
    /// log does); false when it cannot tell.
    func hasEnded(_ suite: String, key: String, identity: String) throws -> Bool

    /// The last value of the thing `identity` names that `key` held, when
    /// the store keeps them (a shared folder's slot log does); nil otherwise.
    func lastValue(_ suite: String, key: String, identity: String) throws -> JSONValue?

    /// Remembers, on this machine, which value of the thing `identity`
    /// names `key` holds now: the one this machine's block of it was just
    /// raised from. Once the log that held that value has dropped it under
    /// later lines and no log holds the thing any more, `hasEnded` says it
    /// ended (a shared folder's slot log); a store of one device keeps
    /// nothing.
    func rememberSource(_ suite: String, key: String, identity: String) throws

    /// Whether a read of `suite` leaves out another device's log that does
    /// not read (a shared folder's); false for a store of one device.
    func leavesOut(_ suite: String) throws -> Bool
}

/// The rule for suite names, the same for every adapter: a plain file name
/// of lower-case letters, digits, `.`, `-` and `_`, not starting with a dot.
public enum SuiteName {
    public static func isValid(_ name: String) -> Bool {
        // Bytes only: `first` would cut a Character (grapheme rules) at
        // every read of a suite, seven times a `stop`.
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.first != UInt8(ascii: ".") && name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
    }

    /// Throws `StoreError.invalidSuiteName` unless `name` is valid.
    public static func check(_ name: String) throws {
        guard isValid(name) else { throw StoreError.invalidSuiteName(name) }
    }
}

/// What a crash right after a write may do to it.
public enum WriteDurability: Sendable {
    /// The write survives any crash once it returns: what every
    /// acknowledged edit needs (semantics.md, "Storage guarantees").
    case durable
    /// The write is whole or absent after a crash, but the previous version
    /// may come back: only for state that the next command repairs when it
    /// is lost (a step that is redone, a record derivable from others). It
    /// spares the directory's fsync.
    case repairable
}

/// Typed access, as `UserDefaults` offers it.
extension KeyValueStore {
    /// A store that keeps no earlier versions has nothing to forget.
    public func discardBackups(of suite: String) throws {}

    /// A store of one device replaces only what it has seen.
    public func unseen(_ suite: String, key: String) throws -> [JSONValue] { [] }

    public func settle(_ suite: String, key: String, value: JSONValue) throws {}

    public func lastValue(_ suite: String, key: String) throws -> JSONValue? { nil }

    public func valueRemovedElsewhere(_ suite: String, key: String) throws -> JSONValue? { nil }

    public func hasEnded(_ suite: String, key: String, identity: String) throws -> Bool { false }

    public func lastValue(_ suite: String, key: String, identity: String) throws -> JSONValue? { nil }

    public func rememberSource(_ suite: String, key: String, identity: String) throws {}

    public func leavesOut(_ suite: String) throws -> Bool { false }

    /// A durable `update`.
    public func update<Result>(_ suite: String, _ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
        try update(suite, durability: .durable, body)
    }

    public func storedValue(forKey key: String, in suite: String) throws -> JSONValue? {
        try values(of: suite)[key]
    }

    public func values(of suite: String, members: Set<String>) throws -> [String: JSONValue] {
        try values(of: suite).mapValues { $0.narrowed(to: members) }
    }

    public func storedValue(forKey key: String, in suite: String, members: Set<String>) throws -> JSONValue? {
        try storedValue(forKey: key, in: suite)?.narrowed(to: members)
    }

    public func value<T: Decodable>(_ type: T.Type, forKey key: String, in suite: String) throws -> T? {
        guard let raw = try storedValue(forKey: key, in: suite) ?? defaults(of: suite)[key] else { return nil }
        return try JSONValueCoding.decode(type, from: raw, key: key)
    }

    public func set<T: Encodable>(_ value: T, forKey key: String, in suite: String, durability: WriteDurability = .durable) throws {
        let raw = try JSONValueCoding.encode(value, key: key)
        try update(suite, durability: durability) { $0[key] = raw }
    }

    public func removeValue(forKey key: String, in suite: String) throws {
        try update(suite) { _ = $0.removeValue(forKey: key) }
    }

    /// Keys stored in the suite, sorted (defaults not included).
    public func keys(in suite: String) throws -> [String] {
        try values(of: suite).keys.sorted()
    }

    /// The suite as a reader sees it: defaults overlaid by stored values.
    public func dictionaryRepresentation(of suite: String) throws -> [String: JSONValue] {
        defaults(of: suite).merging(try values(of: suite)) { _, stored in stored }
    }
}

/// Converts between typed values and `JSONValue` with the store's encoding
/// (dates as ISO-8601 text with nanoseconds, exactly reversible).
public enum JSONValueCoding {
    public static func encode<T: Encodable>(_ value: T, key: String = "") throws -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw StoreError.typeMismatch(key: key, reason: "\(error)")
        }
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, key: String = "") throws -> T {
        do {
            return try JSONValueDecoder().decode(type, from: value)
        } catch let error as DecodingError {
            throw StoreError.typeMismatch(key: key, reason: reason(error))
        } catch {
            throw StoreError.typeMismatch(key: key, reason: "\(error)")
        }
    }

    /// What a decoding error says, in its own words and where (`at
    /// targets.3: expected a string, found a number`), not the type's
    /// description, which names Swift's types.
    static func reason(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found): context = found
        @unknown default: return "\(error)"
        }
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
    }
}

extension JSONValue {
    /// An object with only its members named in `members`; any other value
    /// as it is (`KeyValueStore.values(of:members:)`).
    public func narrowed(to members: Set<String>) -> JSONValue {
        guard case .object(let all) = self else { return self }
        return .object(all.filter { members.contains($0.key) })
    }
}
