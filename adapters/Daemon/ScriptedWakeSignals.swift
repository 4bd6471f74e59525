import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Wake signals for tests, on the manual clock: what a test queued first
/// (`post`), else the deadline, reached by letting the clock run to it. With
/// neither, it says SIGTERM: a script that has run out stops the daemon
/// rather than leaving the test waiting.
public final class ScriptedWakeSignals: WakeSignals {
    private let clock: ManualClock
    private let end: Date?
    private let queued = Mutex<[(reason: WakeReason, action: @Sendable () -> Void)]>([])
    private let waits = Mutex<[Date?]>([])

    public let followsTimeZone = true

    public init(clock: ManualClock, end: Date? = nil) {
        self.clock = clock
        self.end = end
    }

    /// Makes the next wait return `reason` (after those posted before it),
    /// doing `action` first: what changed while the daemon slept.
    public func post(_ reason: WakeReason, doing action: @escaping @Sendable () -> Void = {}) {
        queued.withLock { $0.append((reason, action)) }
    }

    /// The deadline of every wait so far, in order (nil: nothing was due).
    public var deadlines: [Date?] { waits.withLock { $0 } }

    public func wait(until deadline: Date?) async -> WakeReason {
        waits.withLock { $0.append(deadline) }
        if let next = queued.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            next.action()
            return next.reason
        }
        guard let deadline, end.map({ deadline <= $0 }) ?? true else { return .signal(SIGTERM) }
        // Time passes until the deadline: both clocks move, as they would.
        let wait = deadline.timeIntervalSince(clock.now())
        if wait > 0 { clock.advance(by: wait) }
        return .deadline
    }
}
