import Domain
import FoundationEssentials
import JSONDocument

/// What `report` says of allowances: what every device spent of each
/// group's allowance, per local day (the day of the device that spent it).
enum AllowanceSpent {
    struct Day: Equatable {
        /// YYYY-MM-DD.
        let day: String
        let group: String
        let seconds: TimeInterval
    }

    /// The days with something spent, summed over devices, oldest first;
    /// only those in `since..<until` when given (by the day's start in UTC,
    /// near enough for a day the device counted in its own zone).
    static func days(_ records: [AllowanceSpending], names: [GroupID: String], since: Date?, until: Date?) -> [Day] {
        var sums: [Int64: [GroupID: TimeInterval]] = [:]
        for record in records where record.seconds > 0 { sums[record.day, default: [:]][record.group, default: 0] += record.seconds }
        return sums.keys.sorted().flatMap { day -> [Day] in
            let start = Date(timeIntervalSince1970: Double(day * 86_400))
            if let since, start.addingTimeInterval(86_400) <= since { return [] }
            if let until, start >= until { return [] }
            let text = Timestamp.format(start, fractionDigits: 0).prefix(10)
            return sums[day]!.map { Day(day: String(text), group: names[$0.key] ?? $0.key.description, seconds: $0.value) }
                .sorted { $0.group < $1.group }
        }
    }

    /// The same, asking for the groups' names only when something was
    /// spent: a folder with no allowance spent (most) spares `log` and
    /// `report` merging every device's groups log for names they never show.
    static func days(_ records: [AllowanceSpending], names: () async throws -> [GroupID: String], since: Date?,
                     until: Date?) async throws -> [Day] {
        guard records.contains(where: { $0.seconds > 0 }) else { return [] }
        return days(records, names: try await names(), since: since, until: until)
    }

    /// `allowanceSpent` of `log --json` and `report --json`.
    static func json(_ days: [Day]) -> JSONValue {
        .array(days.map { .object(["day": .string($0.day), "group": .string($0.group), "seconds": .int(Int64($0.seconds.rounded()))]) })
    }

    static func render(_ days: [Day]) -> String {
        "allowance spent:\n" + days.map { "  \($0.day)  \($0.group)  \(DurationValue.format($0.seconds))" }.joined(separator: "\n")
    }
}
