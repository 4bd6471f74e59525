#if os(Linux)
import Glibc

/// A pipe that wakes a thread blocked in `poll`: the thread polls
/// `pollRead` beside what it follows, and any other thread calls `wake()`.
/// Both ends are close-on-exec (a hook or a child never inherits them) and
/// non-blocking (a full pipe already wakes; the writer never waits).
/// Closed once, by its owner, when the thread is done with it.
struct WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    /// Makes the pipe, or throws what `failure` makes of the reason.
    init<Failure: Error>(_ failure: (String) -> Failure) throws(Failure) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw failure(String(cString: strerror(errno))) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    /// The read end, for `poll`.
    var pollRead: pollfd { pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0) }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake, so the next `poll` waits again.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
#endif
