import Domain
import FoundationEssentials
import JSONDocument

/// A stored schedule of the common shape read by hand: exactly what its
/// `Codable` decoding gives, without `Codable`'s keyed containers, which
/// cost `schedule add` with 1,000 schedules a fifth of its time (it reads
/// every schedule to warn of overlaps; issue 45).
///
/// Only the common shape is read here: a schedule with a pending change
/// or a cycle, or a JSON value with any member or type this does not
/// expect, is left to `Codable` (nil), which reads it, or says what is
/// wrong with it, as before. `ScheduleJSONTests` holds the two to the same
/// schedules.
enum ScheduleJSON {
    /// The schedule `value` holds, as `Codable` decodes it; nil when it is
    /// not of the common shape.
    static func decode(_ value: JSONValue) -> Schedule? {
        guard case .object(let members) = value, members.count <= known.count, members.keys.allSatisfy(known.contains),
              case .string(let idText)? = members["id"], let id = ScheduleID(idText),
              case .string(let name)? = members["name"],
              case .string(let groupText)? = members["groupId"], let groupId = GroupID(groupText),
              let from = time(members["from"]), let to = time(members["to"]),
              case .array(let dayValues)? = members["weekdays"],
              let warnSeconds = number(members["warnSeconds"]),
              case .bool(let strict)? = members["strict"], case .bool(let enabled)? = members["enabled"],
              absent(members["pending"]), absent(members["cycle"]) else { return nil }
        var weekdays: Set<Weekday> = []
        for day in dayValues {
            guard case .string(let text) = day, let weekday = Weekday(rawValue: text) else { return nil }
            weekdays.insert(weekday)
        }
        var schedule = Schedule(id: id, name: name, groupId: groupId, from: from, to: to, weekdays: weekdays,
                                warnSeconds: warnSeconds, strict: strict, enabled: enabled)
        if !absent(members["allowance"]) {
            guard let allowance = number(members["allowance"]) else { return nil }
            schedule.allowance = allowance
        }
        return schedule
    }

    /// The members `Codable` reads.
    private static let known: Set<String> = ["id", "name", "groupId", "from", "to", "weekdays", "warnSeconds", "strict", "enabled",
                                             "pending", "cycle", "allowance"]

    /// Absent or null: what `decodeIfPresent` reads as nil.
    private static func absent(_ value: JSONValue?) -> Bool {
        value == nil || value == .null
    }

    private static func time(_ value: JSONValue?) -> TimeOfDay? {
        guard case .string(let text)? = value else { return nil }
        return TimeOfDay(parsing: text)
    }

    /// A number as the store's decoder reads a `Double`.
    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .double(let number)?: number
        case .int(let number)?: Double(number)
        default: nil
        }
    }
}
