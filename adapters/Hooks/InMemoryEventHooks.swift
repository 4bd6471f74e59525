import Domain
import Synchronization

/// Remembers the events it was asked to run hooks for: a spy for tests.
public final class InMemoryEventHooks: EventHooks, Notifier {
    private let received = Mutex<[SessionEvent]>([])

    public init() {}

    public func run(_ event: SessionEvent) { received.withLock { $0.append(event) } }
    public func listens(to kind: SessionEvent.Kind) -> Bool { true }
    public func notify(_ event: SessionEvent) { received.withLock { $0.append(event) } }

    /// Every event so far, oldest first.
    public var events: [SessionEvent] { received.withLock { $0 } }
}
