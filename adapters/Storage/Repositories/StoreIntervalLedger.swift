import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Handled interval events in the `intervals` suite of a key-value store:
/// the claim is an atomic read-modify-write, so it holds across restarts.
public struct StoreIntervalLedger: IntervalLedger {
    public static let suite = "intervals"
    private let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func claim(_ key: String, at: Date) async throws -> Bool {
        let stamp = try JSONValueCoding.encode(at, key: key)
        return try store.update(Self.suite) { values in
            guard values[key] == nil else { return false }
            values[key] = stamp
            return true
        }
    }

    public func forget(before instant: Date) async throws {
        try store.update(Self.suite) { values in
            values = try values.filter { entry in
                if entry.key == Self.watermarkKey { return true }
                return try JSONValueCoding.decode(Date.self, from: entry.value, key: entry.key) >= instant
            }
        }
    }

    /// Kept beside the claims; no claim key has this form.
    static let watermarkKey = "watermark"

    public func watermark() async throws -> Date? {
        try store.value(Date.self, forKey: Self.watermarkKey, in: Self.suite)
    }

    public func advanceWatermark(to instant: Date) async throws {
        try store.update(Self.suite) { values in
            let current = try values[Self.watermarkKey].map { try JSONValueCoding.decode(Date.self, from: $0, key: Self.watermarkKey) }
            if let current, current >= instant { return }
            values[Self.watermarkKey] = try JSONValueCoding.encode(instant, key: Self.watermarkKey)
        }
    }
}
