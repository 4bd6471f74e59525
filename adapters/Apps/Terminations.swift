import Dispatch
import FoundationEssentials
import Synchronization
import CRetimeLinux
#if canImport(Glibc)
import Glibc
#endif

/// The processes the app layer is ending: each gets SIGTERM, then SIGKILL
/// at its deadline, through a pidfd (never a recycled pid). A process forked
/// from one of them, or found as its child, is given the same deadline, so
/// a chain of forks that ignores SIGTERM cannot outlive the first's grace
/// (the app layer decides who is given whose deadline). Each is remembered
/// until `retention` after its deadline (longer than the fallback's reading
/// interval), so a fork the kernel reported just before the SIGKILL is
/// still known as a child of one.
final class Terminations: Sendable {
    struct Doomed {
        var pidfd: Int32
        var uid: UInt32
        var deadline: Date
        /// The blocked app it is (or whose tree it is in).
        var app: String
    }
    let retention: TimeInterval
    let maximumHeld: Int
    private let doomed = Mutex([Int32: Doomed]())

    init(retention: TimeInterval = 4, maximumHeld: Int = 256) {
        self.retention = retention
        self.maximumHeld = maximumHeld
    }

    /// The user and deadline of process `pid`, if it is being ended.
    func doomed(_ pid: Int32) -> (uid: UInt32, deadline: Date)? {
        doomed.withLock { $0[pid].map { ($0.uid, $0.deadline) } }
    }

    /// The earliest deadline of `uid`'s processes of `app` being ended.
    func deadline(uid: UInt32, app: String) -> Date? {
        doomed.withLock { table in table.values.filter { $0.uid == uid && $0.app == app }.map(\.deadline).min() }
    }

    /// The app process `pid` is being ended as.
    func app(_ pid: Int32) -> String? {
        doomed.withLock { $0[pid]?.app }
    }

    /// Ends process `pid` of `uid`, as (part of) `app`: SIGTERM now and
    /// SIGKILL at `deadline` (at once if it has passed, or if no pidfd can
    /// be opened). Once a pidfd holds the process, it is read again and
    /// ended only if it is still `uid`'s and `still` holds, so the signal
    /// goes to what was found. Returns whether it was signalled (false for a
    /// process already being ended).
    func end(_ pid: Int32, uid: UInt32, app: String, deadline: Date, still: (ProcessTable.Entry) -> Bool) -> Bool {
        // Polled under the lock: its pidfd is closed only once it is removed.
        if doomed.withLock({ table in table[pid].map { !Self.exited($0.pidfd) } ?? false }) { return false }
        // Past `maximumHeld` pidfds (a fork bomb), none is opened: the
        // descriptors left are the service's, to read /proc and serve with.
        let held = doomed.withLock { table in table.values.count { $0.pidfd >= 0 } }
        let pidfd = held < maximumHeld ? retime_pidfd_open(pid) : -1
        guard pidfd >= 0 else {
            let failure = held < maximumHeld ? errno : EMFILE
            guard failure != ESRCH, let again = ProcessTable.entry(pid), again.uid == uid, still(again) else { return false }
            // Out of descriptors (a fork bomb): no SIGKILL could follow, so
            // it comes now, by number, checked just before; still
            // remembered, so its forks are followed.
            // Otherwise (a thread's id, which has no pidfd) SIGTERM reaches
            // its whole process, as before.
            let outOfDescriptors = failure == EMFILE || failure == ENFILE
            kill(pid, outOfDescriptors || Date() >= deadline ? SIGKILL : SIGTERM)
            if outOfDescriptors {
                doomed.withLock { $0[pid] = Doomed(pidfd: -1, uid: uid, deadline: deadline, app: app) }
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, deadline.timeIntervalSinceNow) + retention) { [self] in
                    doomed.withLock { table in if table[pid]?.pidfd == -1 { table[pid] = nil } }
                }
            }
            return true
        }
        guard let again = ProcessTable.entry(pid), again.uid == uid, still(again) else { close(pidfd); return false }
        let late = Date() >= deadline
        _ = retime_pidfd_signal(pidfd, late ? SIGKILL : SIGTERM)
        // The pidfd is closed only by the last step below, never sooner: the
        // SIGKILL step holds its number.
        doomed.withLock { $0[pid] = Doomed(pidfd: pidfd, uid: uid, deadline: deadline, app: app) }
        let wait = max(0, deadline.timeIntervalSinceNow)
        if !late {
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { _ = retime_pidfd_signal(pidfd, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + wait + retention) { [self] in
            doomed.withLock { table in if table[pid]?.pidfd == pidfd { table[pid] = nil } }
            close(pidfd)
        }
        return true
    }

    /// Whether the process a pidfd holds has ended (its descriptor polls
    /// readable then).
    private static func exited(_ pidfd: Int32) -> Bool {
        var descriptor = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
