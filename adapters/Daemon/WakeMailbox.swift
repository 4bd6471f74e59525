import Domain
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where the watchers of a long-running process (signals, the data, the
/// time zone) post what they saw, and what its one wait polls: reasons
/// queued in the order they came, and a pipe whose read end wakes a `poll`.
/// A reason already waiting is not queued twice (one pass answers both);
/// a signal is taken before anything else, so TERM is never kept waiting
/// behind a burst of data changes.
public final class WakeMailbox: Sendable {
    /// The end to poll for `POLLIN`: readable when something was posted.
    public let descriptor: Int32
    private let writeEnd: Int32
    private let queued = Mutex<[WakeReason]>([])

    public init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw DaemonError.unavailable("pipe: \(POSIXFiles.reason())") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        descriptor = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Queues `reason` and wakes the reader; safe from any thread.
    public func post(_ reason: WakeReason) {
        let added = queued.withLock { queue in
            guard !queue.contains(reason) else { return false }
            queue.append(reason)
            return true
        }
        // A full pipe already wakes the reader; the byte is only a nudge.
        var byte: UInt8 = 1
        if added { _ = write(writeEnd, &byte, 1) }
    }

    /// The next reason (a signal first), or nil when none is waiting. Drains
    /// the pipe: a reader polls again only after this returned nil.
    public func take() -> WakeReason? {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &bytes, bytes.count) > 0 {}
        return queued.withLock { queue in
            let index = queue.firstIndex { if case .signal = $0 { true } else { false } } ?? queue.startIndex
            return queue.isEmpty ? nil : queue.remove(at: index)
        }
    }
}
