import Domain
import FoundationEssentials
import Synchronization

/// What was spent of each group's allowance, held in memory.
public final class InMemoryAllowanceLedger: AllowanceLedger {
    private let records = Mutex<[String: AllowanceSpending]>([:])

    public init() {}

    public func spending(of group: GroupID) async throws -> [AllowanceSpending] {
        records.withLock { $0.values.filter { $0.group == group } }
    }

    public func allSpending() async throws -> [AllowanceSpending] {
        records.withLock { Array($0.values) }
    }

    public func spend(_ seconds: TimeInterval, of group: GroupID, by device: String, on day: Int64, at: Date,
                      boot: BootTimeReading?) async throws {
        records.withLock { records in
            let key = "\(group).\(device).\(day)"
            var record = records[key] ?? AllowanceSpending(group: group, device: device, day: day, seconds: 0, at: at, boot: boot)
            record.seconds = max(0, record.seconds + seconds)
            record.at = at
            record.boot = boot
            records[key] = record
        }
    }
}
