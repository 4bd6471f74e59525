import Domain
import FoundationEssentials
import Synchronization

/// Presence for tests, on the manual clock: the machine says what a test
/// sends (`send`), stamped with the clock's now unless the test says when
/// the state began (idle's `since` is when input stopped, before the
/// signal). A consumer that asks for the changes first hears the state as
/// of its call, as from logind.
public final class ScriptedPresenceSignals: PresenceSignals {
    private struct State {
        var current: PresenceChange
        var consumers: [UUID: AsyncStream<PresenceChange>.Continuation] = [:]
    }

    private let clock: ManualClock
    private let state: Mutex<State>
    private let available: PresenceAvailability

    public init(clock: ManualClock, availability: PresenceAvailability = .available(source: "scripted")) {
        self.clock = clock
        self.available = availability
        state = Mutex(State(current: PresenceChange(state: .present, since: clock.now())))
    }

    public func availability() async -> PresenceAvailability { available }

    /// How many consumers follow the changes now: a test waits for the
    /// daemon to listen before it sends.
    public var consumerCount: Int { state.withLock { $0.consumers.count } }

    /// The machine says `presence` began at `since` (now when nil).
    public func send(_ presence: PresenceChange.State, since: Date? = nil) {
        let change = PresenceChange(state: presence, since: since ?? clock.now())
        let consumers = state.withLock { state in
            state.current = change
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.yield(change) }
    }

    /// The source goes away, as logind's bus does when its daemon restarts:
    /// every stream followed now ends (the next `changes()` follows anew).
    public func lose() {
        let consumers = state.withLock { state in
            defer { state.consumers.removeAll() }
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.finish() }
    }

    public func changes() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream<PresenceChange>.makeStream()
        guard case .available = available else {
            continuation.finish()
            return stream
        }
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.consumers.removeValue(forKey: id) } }
        state.withLock { state in
            continuation.yield(state.current)
            state.consumers[id] = continuation
        }
        return stream
    }
}
