import Domain
import Synchronization

/// The current-session slot held in memory.
public final class InMemorySessionRepository: SessionRepository {
    private let slot: Mutex<Session?>

    public init(_ initial: Session? = nil) {
        slot = Mutex(initial)
    }

    public func current() async throws -> Session? {
        slot.withLock { $0 }
    }

    public func replace(_ expected: Session?, with new: Session?) async throws -> Bool {
        slot.withLock { stored in
            guard stored == expected else { return false }
            stored = new
            return true
        }
    }
}
