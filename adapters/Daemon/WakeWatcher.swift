import Dispatch
import Domain

/// One thing a long-running process watches (its signals, its data, the
/// system's time zone): once started it posts what it sees to a mailbox,
/// until it is stopped. The daemon runs each as a service of its own.
public protocol WakeWatcher: Sendable {
    /// What it watches, for logs and the service's name.
    var name: String { get }
    /// Starts posting to `mailbox`.
    func start(posting mailbox: WakeMailbox) throws
    /// Stops posting; when it returns, nothing more is posted.
    func stop() async
}

/// A dispatch source kept by a watcher and cancelled from another task.
/// libdispatch's sources are safe to cancel from any thread; the Dispatch
/// overlay on Linux does not say so, hence the unchecked conformance.
struct RunningSource: @unchecked Sendable {
    let source: any DispatchSourceProtocol
    /// Run once the source's handlers can no longer run: closing what they read.
    var cleanup: @Sendable () -> Void = {}

    /// Cancels the source and returns once its handlers can no longer run.
    func cancel() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            source.setCancelHandler {
                cleanup()
                done.resume()
            }
            source.cancel()
        }
    }

    /// Cancels the source without waiting (a watcher released unstopped).
    func cancelSoon() {
        source.setCancelHandler(handler: cleanup)
        source.cancel()
    }
}
