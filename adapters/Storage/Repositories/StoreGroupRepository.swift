import Domain

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
        try Self.decode(try store.values(of: Self.suite)).sortedByKey(\.name.comparisonKey)
    }

    public func group(id: GroupID) async throws -> Group? {
        try store.value(Group.self, forKey: id.description, in: Self.suite)
    }

    public func group(named name: String) async throws -> Group? {
        let groups = try Self.decode(try store.values(of: Self.suite))
        // Names are unique by their comparison key, so a group named exactly
        // `name` is the one the key would find. Trying that first spares the
        // usual command Foundation's case folding (0.15 ms on first use).
        if let exact = groups.first(where: { $0.name.rawValue == name }) { return exact }
        let key = GroupName.comparisonKey(name)
        return groups.first { $0.name.comparisonKey == key }
    }

    public func insert(_ group: Group) async throws {
        try store.update(Self.suite) { values in
            let existing = try Self.decode(values)
            if let holder = existing.first(where: { $0.id == group.id || $0.name == group.name }) {
                throw GroupError.alreadyExists(name: holder.name.rawValue)
            }
            values[group.id.description] = try JSONValueCoding.encode(group, key: group.id.description)
        }
    }

    /// One locked write of the suite, however many groups: creating 3,000
    /// groups one by one rewrote the file 3,000 times.
    public func insert(contentsOf batch: [Group]) async throws -> [Group] {
        try store.update(Self.suite) { values in
            var holders: [String: Group] = [:]
            for group in try Self.decode(values) { holders[group.name.comparisonKey] = group }
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
            let existing = try Self.decode(values)
            guard existing.contains(where: { $0.id == group.id }) else { throw GroupError.notFound(name: group.name.rawValue) }
            if let holder = existing.first(where: { $0.name == group.name && $0.id != group.id }) {
                throw GroupError.alreadyExists(name: holder.name.rawValue)
            }
            values[group.id.description] = try JSONValueCoding.encode(group, key: group.id.description)
        }
    }

    public func delete(id: GroupID) async throws {
        try store.update(Self.suite) { values in
            guard values.removeValue(forKey: id.description) != nil else { throw GroupError.notFound(name: id.description) }
        }
    }

    private static func decode(_ values: [String: JSONValue]) throws -> [Group] {
        try values.map { key, value in try JSONValueCoding.decode(Group.self, from: value, key: "\(suite)/\(key)") }
    }
}
