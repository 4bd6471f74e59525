import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A `timerfd` armed at an absolute wall-clock deadline: a suspend does not
/// delay it, and setting the clock (by hand, NTP, a resume) wakes its
/// reader at once. What the daemon and the system service sleep on.
final class DeadlineTimer: @unchecked Sendable {
    /// The descriptor to poll for `POLLIN`.
    let descriptor: Int32

    init() throws {
        descriptor = retime_timerfd_create()
        guard descriptor >= 0 else { throw DaemonError.unavailable("timerfd: \(POSIXFiles.reason())") }
    }

    /// Arms the timer for `deadline`; nil disarms it.
    func arm(_ deadline: Date?) {
        guard let deadline else {
            retime_timerfd_arm(descriptor, 0, 0)
            return
        }
        // Zero disarms a timerfd; a deadline at or before the epoch is due anyway.
        let seconds = max(deadline.timeIntervalSince1970, 0.000_001)
        let whole = seconds.rounded(.down)
        retime_timerfd_arm(descriptor, Int64(whole), Int((seconds - whole) * 1e9))
    }

    /// Takes the expiry the descriptor reported; true when it woke because
    /// the wall clock was set rather than because the deadline came.
    func takeExpiry() -> Bool {
        var expirations: UInt64 = 0
        return read(descriptor, &expirations, 8) < 0 && errno == ECANCELED
    }

    deinit { close(descriptor) }
}
