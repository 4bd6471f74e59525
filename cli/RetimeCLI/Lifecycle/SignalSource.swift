import Adapters
import Dispatch
import FoundationEssentials
import Synchronization

/// Where a group's signals come from: the process's own (`ProcessSignals`)
/// or, in a test, signals it sends by hand. A seam, so the group's rules
/// are tested without signalling the test process.
protocol SignalSource: Sendable {
    /// Catches `numbers` from now on; each caught one comes out of the
    /// stream, until `stop()`.
    func start(_ numbers: [Int32]) throws -> AsyncStream<Int32>
    /// Stops catching (the signals' default dispositions are back) and
    /// ends the stream.
    func stop() async
}

/// The process's signals as a stream: a `SignalWatcher` (a handler's
/// self-pipe and a signalfd, so a signal is seen however the kernel
/// delivers it) posting to a mailbox whose descriptor a dispatch source
/// reads.
final class ProcessSignals: SignalSource {
    private let running = Mutex<Running?>(nil)

    private struct Running: @unchecked Sendable {
        let watcher: SignalWatcher
        let mailbox: WakeMailbox
        let source: any DispatchSourceRead
        let stream: AsyncStream<Int32>.Continuation
    }

    func start(_ numbers: [Int32]) throws -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let mailbox = try WakeMailbox()
        let watcher = SignalWatcher(numbers)
        let source = DispatchSource.makeReadSource(fileDescriptor: mailbox.descriptor, queue: DispatchQueue(label: "retime.signals"))
        source.setEventHandler {
            while let reason = mailbox.take() {
                if case .signal(let number) = reason { continuation.yield(number) }
            }
        }
        source.resume()
        running.withLock { $0 = Running(watcher: watcher, mailbox: mailbox, source: source, stream: continuation) }
        try watcher.start(posting: mailbox)
        return stream
    }

    func stop() async {
        guard let stopped = running.withLock({ running in defer { running = nil }; return running }) else { return }
        await stopped.watcher.stop()
        // The mailbox's descriptor is closed when it goes: only once the
        // source that reads it can no longer run.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            stopped.source.setCancelHandler { done.resume() }
            stopped.source.cancel()
        }
        stopped.stream.finish()
    }
}
