import Domain
import FoundationEssentials

/// What was spent of each group's allowance, in the `allowances` suite of
/// the data folder's store, shared by the devices that share it: one record
/// per group, device and local day (`<group>.<device>.<day>`), written only
/// by its device, so two devices never change the same record and a sync
/// tool never sees a conflict. Reads sum the devices' records.
public struct StoreAllowanceLedger: AllowanceLedger {
    public static let suite = "allowances"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func spending(of group: GroupID) async throws -> [AllowanceSpending] {
        let prefix = group.description + "."
        return try store.values(of: Self.suite).compactMap { key, value in
            guard key.hasPrefix(prefix) else { return nil }
            return try JSONValueCoding.decode(AllowanceSpending.self, from: value, key: "\(Self.suite)/\(key)")
        }
    }

    public func allSpending() async throws -> [AllowanceSpending] {
        try store.values(of: Self.suite).map { key, value in
            try JSONValueCoding.decode(AllowanceSpending.self, from: value, key: "\(Self.suite)/\(key)")
        }
    }

    public func spend(_ seconds: TimeInterval, of group: GroupID, by device: String, on day: Int64, at: Date,
                      boot: BootTimeReading?) async throws {
        let key = "\(group).\(device).\(day)"
        try store.update(Self.suite) { values in
            var record = try values[key].map { try JSONValueCoding.decode(AllowanceSpending.self, from: $0, key: "\(Self.suite)/\(key)") }
                ?? AllowanceSpending(group: group, device: device, day: day, seconds: 0, at: at, boot: boot)
            record.seconds = max(0, record.seconds + seconds)
            record.at = at
            record.boot = boot
            values[key] = try JSONValueCoding.encode(record, key: key)
        }
    }
}
