import Domain
import Synchronization

/// Groups held in memory: for tests, and the reference implementation of
/// `GroupRepository` that the file-backed one must match.
public final class InMemoryGroupRepository: GroupRepository {
    private let groups: Mutex<[GroupID: Group]>

    public init(_ initial: [Group] = []) {
        groups = Mutex(Dictionary(initial.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }))
    }

    public func all() async throws -> [Group] {
        groups.withLock { Array($0.values) }.sorted { $0.name.comparisonKey < $1.name.comparisonKey }
    }

    public func group(id: GroupID) async throws -> Group? {
        groups.withLock { $0[id] }
    }

    public func id(named name: String) async throws -> GroupID? {
        try await group(named: name)?.id
    }

    public func names() async throws -> [GroupID: String] {
        groups.withLock { $0.mapValues(\.name.rawValue) }
    }

    public func name(of id: GroupID) async throws -> String? {
        groups.withLock { $0[id]?.name.rawValue }
    }

    public func group(named name: String) async throws -> Group? {
        let key = GroupName.comparisonKey(name)
        return groups.withLock { $0.values.first { $0.name.comparisonKey == key } }
    }

    public func insert(_ group: Group) async throws {
        try groups.withLock { (all: inout [GroupID: Group]) throws(GroupError) in
            if let holder = all[group.id] ?? all.values.first(where: { $0.name == group.name }) {
                throw .alreadyExists(name: holder.name.rawValue)
            }
            all[group.id] = group
        }
    }

    public func insert(contentsOf batch: [Group]) async throws -> [Group] {
        try groups.withLock { (all: inout [GroupID: Group]) throws(GroupError) in
            var holders: [String: Group] = [:]
            for group in all.values { holders[group.name.comparisonKey] = group }
            return try batch.map { (group: Group) throws(GroupError) -> Group in
                if let holder = holders[group.name.comparisonKey] { return holder }
                if let holder = all[group.id] { throw .alreadyExists(name: holder.name.rawValue) }
                all[group.id] = group
                holders[group.name.comparisonKey] = group
                return group
            }
        }
    }

    public func update(_ group: Group) async throws {
        try groups.withLock { (all: inout [GroupID: Group]) throws(GroupError) in
            guard all[group.id] != nil else { throw .notFound(name: group.name.rawValue) }
            if let holder = all.values.first(where: { $0.name == group.name && $0.id != group.id }) {
                throw .alreadyExists(name: holder.name.rawValue)
            }
            all[group.id] = group
        }
    }

    public func delete(id: GroupID) async throws {
        try groups.withLock { (all: inout [GroupID: Group]) throws(GroupError) in
            guard all.removeValue(forKey: id) != nil else { throw .notFound(name: id.description) }
        }
    }
}
