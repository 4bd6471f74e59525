#if os(Linux)
import Dispatch

/// A semaphore a `@Sendable` closure may capture: waits for work handed
/// to a bus's thread.
final class DispatchSemaphoreBox: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait() { semaphore.wait() }
}
#endif
