import Domain
import JSONDocument

/// Groups kept in the `groups` suite of a key-value store, one key per group
/// id. Name uniqueness is checked inside the store's atomic update, so two
/// processes cannot both create the same name.
public struct StoreGroupRepository: GroupRepository {
    public static let suite = "groups"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func all() async throws -> [Group] {
        // Two groups one name holds (made on two devices apart) list in the
        // same order on every device: by id, as lookups pick the smaller.
        try Self.decode(RecordNames.made(try store.values(of: Self.suite))).sortedByKey { $0.name.comparisonKey + "\u{0}" + $0.id.description }
    }

    public func group(id: GroupID) async throws -> Group? {
        guard let raw = try store.storedValue(forKey: id.description, in: Self.suite), RecordNames.isMade(raw) else { return nil }
        return try Self.decode(id.description, raw)
    }

    public func name(of id: GroupID) async throws -> String? {
        // Its name and id alone, not its targets.
        guard let raw = try store.storedValue(forKey: id.description, in: Self.suite, members: RecordNames.members), RecordNames.isMade(raw)
        else { return nil }
        if let name = RecordNames.name(of: raw) { return name }
        // A record whose name cannot be read is decoded: its error says why.
        return try store.storedValue(forKey: id.description, in: Self.suite).map { try Self.decode(id.description, $0).name.rawValue }
    }

    public func names() async throws -> [GroupID: String] {
        var names: [GroupID: String] = [:]
        for (key, raw) in RecordNames.made(try store.values(of: Self.suite, members: RecordNames.members)) {
            if let id = GroupID(key), RecordNames.id(of: raw) == key, let name = RecordNames.name(of: raw) {
                names[id] = name
            } else {
                guard let raw = try store.storedValue(forKey: key, in: Self.suite) else { continue }   // removed meanwhile
                let group = try Self.decode(key, raw)   // a hand-edited record: decoded, or its error
                names[group.id] = group.name.rawValue
            }
        }
        return names
    }

    public func group(named name: String) async throws -> Group? {
        let values = RecordNames.made(try store.values(of: Self.suite))
        return try Self.key(named: name, in: values).map { try Self.decode($0, values[$0]!) }
    }

    public func id(named name: String) async throws -> GroupID? {
        // Their names and ids alone: a group's targets need not be read to
        // find it (10,000 of them in one group were most of `schedule add`'s
        // lookup of a group among 1,000).
        let names = RecordNames.made(try store.values(of: Self.suite, members: RecordNames.members))
        let lookup = RecordNames.key(named: name, in: names)
        guard let key = lookup.found else {
            for key in lookup.unreadable {   // throws what is wrong
                if let raw = try store.storedValue(forKey: key, in: Self.suite) { _ = try Self.decode(key, raw) }
            }
            return nil
        }
        // Records are kept under their id; a hand-edited key is decoded.
        if let id = GroupID(key), RecordNames.id(of: names[key]!) == key { return id }
        return try store.storedValue(forKey: key, in: Self.suite).map { try Self.decode(key, $0).id }
    }

    /// The key of the record named `name`; throws what is wrong with a
    /// record whose name cannot be read when no readable one matches.
    private static func key(named name: String, in values: [String: JSONValue]) throws -> String? {
        let lookup = RecordNames.key(named: name, in: values)
        if lookup.found == nil { _ = try decode(values.filter { lookup.unreadable.contains($0.key) }) }
        return lookup.found
    }

    public func insert(_ group: Group) async throws {
        try store.update(Self.suite) { values in
            if let raw = values[group.id.description] {
                throw GroupError.alreadyExists(name: try Self.decode(group.id.description, raw).name.rawValue)
            }
            try Self.checkNameFree(group, in: values)
            values[group.id.description] = try JSONValueCoding.encode(group, key: group.id.description)
        }
    }

    /// One locked write of the suite, however many groups: creating 3,000
    /// groups one by one rewrote the file 3,000 times.
    public func insert(contentsOf batch: [Group]) async throws -> [Group] {
        try store.update(Self.suite) { values in
            var holders: [String: Group] = [:]
            for group in try Self.decode(RecordNames.made(values)) { holders[group.name.comparisonKey] = group }
            return try batch.map { group in
                if let holder = holders[group.name.comparisonKey] { return holder }
                if let raw = values[group.id.description] {
                    let holder = try JSONValueCoding.decode(Group.self, from: raw, key: group.id.description)
                    throw GroupError.alreadyExists(name: holder.name.rawValue)
                }
                values[group.id.description] = try JSONValueCoding.encode(group, key: group.id.description)
                holders[group.name.comparisonKey] = group
                return group
            }
        }
    }

    public func update(_ group: Group) async throws {
        try store.update(Self.suite) { values in
            guard values[group.id.description] != nil else { throw GroupError.notFound(name: group.name.rawValue) }
            try Self.checkNameFree(group, in: values)
            values[group.id.description] = try JSONValueCoding.encode(group, key: group.id.description)
        }
    }

    /// Throws `alreadyExists` if another group holds `group`'s name.
    private static func checkNameFree(_ group: Group, in values: [String: JSONValue]) throws {
        let values = RecordNames.made(values)
        let lookup = RecordNames.key(named: group.name.rawValue, in: values)
        _ = try decode(values.filter { lookup.unreadable.contains($0.key) })
        if let key = lookup.found, key != group.id.description {
            throw GroupError.alreadyExists(name: try decode(key, values[key]!).name.rawValue)
        }
    }

    public func delete(id: GroupID) async throws {
        try store.update(Self.suite) { values in
            guard values.removeValue(forKey: id.description) != nil else { throw GroupError.notFound(name: id.description) }
        }
    }

    private static func decode(_ values: [String: JSONValue]) throws -> [Group] {
        try values.map { key, value in try decode(key, value) }
    }

    private static func decode(_ key: String, _ value: JSONValue) throws -> Group {
        try JSONValueCoding.decode(Group.self, from: value, key: "\(suite)/\(key)")
    }
}
