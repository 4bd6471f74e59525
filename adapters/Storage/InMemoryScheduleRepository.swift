import Domain
import Synchronization

/// Schedules held in memory: the reference implementation of `ScheduleRepository`.
public final class InMemoryScheduleRepository: ScheduleRepository {
    private let schedules: Mutex<[ScheduleID: Schedule]>

    public init(_ initial: [Schedule] = []) {
        schedules = Mutex(Dictionary(initial.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }))
    }

    public func all() async throws -> [Schedule] {
        schedules.withLock { Array($0.values) }.sorted { $0.nameKey < $1.nameKey }
    }

    public func schedule(named name: String) async throws -> Schedule? {
        let key = NameRules.comparisonKey(name)
        return schedules.withLock { $0.values.first { $0.nameKey == key } }
    }

    public func insert(_ schedule: Schedule) async throws {
        try schedules.withLock { (all: inout [ScheduleID: Schedule]) throws(ScheduleError) in
            if let holder = all[schedule.id] ?? all.values.first(where: { $0.nameKey == schedule.nameKey }) {
                throw .alreadyExists(name: holder.name)
            }
            all[schedule.id] = schedule
        }
    }

    public func update(_ schedule: Schedule) async throws {
        try schedules.withLock { (all: inout [ScheduleID: Schedule]) throws(ScheduleError) in
            guard all[schedule.id] != nil else { throw .notFound(name: schedule.name) }
            if let holder = all.values.first(where: { $0.nameKey == schedule.nameKey && $0.id != schedule.id }) {
                throw .alreadyExists(name: holder.name)
            }
            all[schedule.id] = schedule
        }
    }

    public func delete(id: ScheduleID) async throws {
        try schedules.withLock { (all: inout [ScheduleID: Schedule]) throws(ScheduleError) in
            guard all.removeValue(forKey: id) != nil else { throw .notFound(name: id.description) }
        }
    }
}
