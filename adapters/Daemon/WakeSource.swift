import Dispatch
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's wait: one `poll` on a `timerfd` armed at an absolute
/// wall-clock deadline (so suspend does not delay it, and a clock change
/// wakes it) and on the mailbox its watchers post to (signals, the data,
/// the time zone: each a service of its own). Nothing wakes it
/// periodically.
public final class WakeSource: WakeSignals {
    private let timer: DeadlineTimer
    private let mailbox: WakeMailbox
    private let queue = DispatchQueue(label: "retime.daemon.wait")
    public let followsTimeZone: Bool

    /// Waits on `mailbox`; `followsTimeZone` says whether a time-zone
    /// watcher posts to it.
    public init(mailbox: WakeMailbox, followsTimeZone: Bool) throws {
        timer = try DeadlineTimer()
        self.mailbox = mailbox
        self.followsTimeZone = followsTimeZone
    }

    /// Sleeps until `deadline` (forever when nil) or something else wakes it.
    public func wait(until deadline: Date?) async -> WakeReason {
        timer.arm(deadline)
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.blockUntilWoken()) }
        }
    }

    private func blockUntilWoken() -> WakeReason {
        var fds = [pollfd(fd: mailbox.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timer.descriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            // What was posted while the daemon was busy comes first.
            if let reason = mailbox.take() { return reason }
            for index in fds.indices { fds[index].revents = 0 }
            while poll(&fds, nfds_t(fds.count), -1) < 0 && errno == EINTR {}
            if fds[1].revents != 0, fds[0].revents == 0 { return timer.takeExpiry() ? .clockChanged : .deadline }
        }
    }
}
