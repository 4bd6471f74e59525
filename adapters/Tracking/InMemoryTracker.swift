import Domain
import Synchronization

/// Keeps every tracked event in memory, in order: for tests and previews.
public final class InMemoryTracker: Tracker {
    private let recorded = Mutex<[TrackedEvent]>([])

    public init() {}

    public func track(_ event: TrackedEvent) {
        recorded.withLock { $0.append(event) }
    }

    public var events: [TrackedEvent] { recorded.withLock { $0 } }
}
