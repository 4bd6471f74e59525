import Domain

/// Schedules kept in the `schedules` suite of a key-value store, one key per
/// schedule id; name uniqueness is checked inside the atomic update.
public struct StoreScheduleRepository: ScheduleRepository {
    public static let suite = "schedules"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func all() async throws -> [Schedule] {
        try Self.decode(try store.values(of: Self.suite)).sortedByKey(\.nameKey)
    }

    public func schedule(named name: String) async throws -> Schedule? {
        let schedules = try Self.decode(try store.values(of: Self.suite))
        // Unique by key: an exact name match is the answer, without folding
        // case (see StoreGroupRepository.group(named:)).
        if let exact = schedules.first(where: { $0.name == name }) { return exact }
        let key = NameRules.comparisonKey(name)
        return schedules.first { $0.nameKey == key }
    }

    public func insert(_ schedule: Schedule) async throws {
        try store.update(Self.suite) { values in
            if let holder = try Self.decode(values).first(where: { $0.id == schedule.id || $0.nameKey == schedule.nameKey }) {
                throw ScheduleError.alreadyExists(name: holder.name)
            }
            values[schedule.id.description] = try JSONValueCoding.encode(schedule, key: schedule.id.description)
        }
    }

    public func update(_ schedule: Schedule) async throws {
        try store.update(Self.suite) { values in
            let existing = try Self.decode(values)
            guard existing.contains(where: { $0.id == schedule.id }) else { throw ScheduleError.notFound(name: schedule.name) }
            if let holder = existing.first(where: { $0.nameKey == schedule.nameKey && $0.id != schedule.id }) {
                throw ScheduleError.alreadyExists(name: holder.name)
            }
            values[schedule.id.description] = try JSONValueCoding.encode(schedule, key: schedule.id.description)
        }
    }

    public func delete(id: ScheduleID) async throws {
        try store.update(Self.suite) { values in
            guard values.removeValue(forKey: id.description) != nil else { throw ScheduleError.notFound(name: id.description) }
        }
    }

    private static func decode(_ values: [String: JSONValue]) throws -> [Schedule] {
        try values.map { key, value in try JSONValueCoding.decode(Schedule.self, from: value, key: "\(suite)/\(key)") }
    }
}
