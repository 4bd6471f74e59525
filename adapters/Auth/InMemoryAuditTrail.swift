import Domain
import Synchronization

/// An audit trail in memory, for tests and previews.
public final class InMemoryAuditTrail: AuditTrail {
    private let stored = Mutex<[AuditEntry]>([])

    public init() {}

    public func append(_ entry: AuditEntry) async throws {
        stored.withLock { $0.append(entry) }
    }

    public func entries() async throws -> [AuditEntry] {
        stored.withLock { $0 }
    }
}
