import Domain
import JSONDocument

/// Schedules kept in the `schedules` suite of a key-value store, one key per
/// schedule id; name uniqueness is checked inside the atomic update.
public struct StoreScheduleRepository: ScheduleRepository {
    public static let suite = "schedules"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func all() async throws -> [Schedule] {
        try Self.decode(RecordNames.made(try store.values(of: Self.suite))).sortedByKey { $0.nameKey + "\u{0}" + $0.id.description }
    }

    public func schedule(named name: String) async throws -> Schedule? {
        let values = RecordNames.made(try store.values(of: Self.suite))
        let lookup = RecordNames.key(named: name, in: values)
        guard let key = lookup.found else {
            _ = try Self.decode(values.filter { lookup.unreadable.contains($0.key) })   // throws what is wrong
            return nil
        }
        return try Self.decode(key, values[key]!)
    }

    public func insert(_ schedule: Schedule) async throws {
        try store.update(Self.suite) { values in
            if let raw = values[schedule.id.description] {
                throw ScheduleError.alreadyExists(name: try Self.decode(schedule.id.description, raw).name)
            }
            try Self.checkNameFree(schedule, in: values)
            values[schedule.id.description] = try JSONValueCoding.encode(schedule, key: schedule.id.description)
        }
    }

    public func update(_ schedule: Schedule) async throws {
        try store.update(Self.suite) { values in
            guard values[schedule.id.description] != nil else { throw ScheduleError.notFound(name: schedule.name) }
            try Self.checkNameFree(schedule, in: values)
            values[schedule.id.description] = try JSONValueCoding.encode(schedule, key: schedule.id.description)
        }
    }

    /// Throws `alreadyExists` if another schedule holds `schedule`'s name.
    private static func checkNameFree(_ schedule: Schedule, in values: [String: JSONValue]) throws {
        let values = RecordNames.made(values)
        let lookup = RecordNames.key(named: schedule.name, in: values)
        _ = try decode(values.filter { lookup.unreadable.contains($0.key) })
        if let key = lookup.found, key != schedule.id.description {
            throw ScheduleError.alreadyExists(name: try decode(key, values[key]!).name)
        }
    }

    public func delete(id: ScheduleID) async throws {
        try store.update(Self.suite) { values in
            guard values.removeValue(forKey: id.description) != nil else { throw ScheduleError.notFound(name: id.description) }
        }
    }

    private static func decode(_ values: [String: JSONValue]) throws -> [Schedule] {
        try values.map { key, value in try decode(key, value) }
    }

    private static func decode(_ key: String, _ value: JSONValue) throws -> Schedule {
        // By hand when it is of the common shape; else `Codable` reads it,
        // or says what is wrong with it.
        if let schedule = ScheduleJSON.decode(value) { return schedule }
        return try JSONValueCoding.decode(Schedule.self, from: value, key: "\(suite)/\(key)")
    }
}
