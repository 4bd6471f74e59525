import Domain
import Synchronization

/// The current-session slot held in memory.
public final class InMemorySessionRepository: SessionRepository {
    private let slot: Mutex<Session?>
    private let last: Mutex<SessionID?>

    public init(_ initial: Session? = nil) {
        slot = Mutex(initial)
        last = Mutex(initial?.id)
    }

    public func current() async throws -> Session? {
        slot.withLock { $0 }
    }

    public func replace(_ expected: Session?, with new: Session?) async throws -> Bool {
        slot.withLock { stored in
            guard stored == expected else { return false }
            stored = new
            if let new { last.withLock { $0 = new.id } }
            return true
        }
    }

    public func lastHeld() async throws -> SessionID? {
        last.withLock { $0 }
    }
}
