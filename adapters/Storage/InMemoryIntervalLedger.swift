import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Handled interval events held in memory.
public final class InMemoryIntervalLedger: IntervalLedger {
    private let claims = Mutex<[String: Date]>([:])
    private let mark = Mutex<Date?>(nil)

    public init() {}

    public func claim(_ key: String, at: Date) async throws -> Bool {
        claims.withLock { claims in
            guard claims[key] == nil else { return false }
            claims[key] = at
            return true
        }
    }

    public func forget(before instant: Date) async throws {
        claims.withLock { $0 = $0.filter { $0.value >= instant } }
    }

    public func watermark() async throws -> Date? { mark.withLock { $0 } }

    public func advanceWatermark(to instant: Date) async throws {
        mark.withLock { $0 = max($0 ?? instant, instant) }
    }

    /// Every key claimed so far.
    public var keys: Set<String> { claims.withLock { Set($0.keys) } }
}
