import CRetimeLinux
import Dispatch
import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon waits for, in one `poll`: a `timerfd` armed at an
/// absolute wall-clock deadline (so suspend does not delay it, and a clock
/// change wakes it), `inotify` on the store's directory and on the system's
/// time-zone files, and the signals TERM, INT and HUP. Nothing wakes it
/// periodically.
public final class WakeSource: WakeSignals, @unchecked Sendable {
    /// Where the system's time zone is set on Linux.
    public static let systemTimeZoneFiles = ["/etc/localtime", "/etc/timezone"]

    // Written once in init; the descriptors are only used by one wait at a time.
    private let timer: DeadlineTimer
    private let watcher: Int32
    private let zoneWatcher: Int32
    private let zoneNames: [String]
    private let signals: SignalPipe
    private let queue = DispatchQueue(label: "retime.daemon.wait")
    /// Whether a change of the time-zone files wakes the daemon (their
    /// directory could be watched).
    public let followsTimeZone: Bool

    public init(watching directory: String, timeZoneFiles: [String] = WakeSource.systemTimeZoneFiles) throws {
        timer = try DeadlineTimer()
        watcher = retime_inotify_create()
        zoneWatcher = retime_inotify_create()
        guard watcher >= 0, zoneWatcher >= 0 else { throw DaemonError.unavailable("inotify: \(POSIXFiles.reason())") }
        try POSIXFiles.ensureDirectory(directory)
        guard retime_inotify_watch_writes(watcher, directory) >= 0 else {
            throw DaemonError.unavailable("cannot watch \(directory): \(POSIXFiles.reason())")
        }
        // The files are replaced, not written (a new symlink renamed over the
        // old), so their directory is watched, and its events filtered by name.
        var watched = Set<String>(), watching = false
        for file in timeZoneFiles where watched.insert(POSIXFiles.parentDirectory(of: file)).inserted {
            watching = retime_inotify_watch_writes(zoneWatcher, POSIXFiles.parentDirectory(of: file)) >= 0 || watching
        }
        zoneNames = timeZoneFiles.map { String($0.split(separator: "/").last ?? "") }
        followsTimeZone = watching
        signals = try SignalPipe([SIGTERM, SIGINT, SIGHUP])
    }

    deinit {
        [watcher, zoneWatcher].forEach { close($0) }
    }

    /// Sleeps until `deadline` (forever when nil) or something else wakes it.
    public func wait(until deadline: Date?) async -> WakeReason {
        timer.arm(deadline)
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.blockUntilWoken()) }
        }
    }

    private func blockUntilWoken() -> WakeReason {
        var fds = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timer.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: watcher, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: zoneWatcher, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            for index in fds.indices { fds[index].revents = 0 }
            while poll(&fds, nfds_t(fds.count), -1) < 0 && errno == EINTR {}
            if fds[0].revents != 0, let number = signals.take() { return .signal(number) }
            if fds[1].revents != 0 { return timer.takeExpiry() ? .clockChanged : .deadline }
            // Only a suite file replaced, written or deleted is a change of
            // the data: lock files taken, temp files being written and
            // backups are not, or every pass's own lock would wake the next.
            if fds[2].revents != 0, drain(watcher, &buffer, { retime_inotify_names_ending($0, $1, ".json") == 1 }) {
                return .dataChanged
            }
            if fds[3].revents != 0, drain(zoneWatcher, &buffer, { buffer, count in
                zoneNames.contains { retime_inotify_names(buffer, count, $0) == 1 }
            }) {
                return .timeZoneChanged
            }
            // Something else changed: not ours; sleep on.
        }
    }

    /// Drains an inotify descriptor (one wake for a burst of events);
    /// whether any of its events was `relevant`.
    private func drain(_ fd: Int32, _ buffer: inout [UInt8], _ relevant: (UnsafeRawPointer, Int) -> Bool) -> Bool {
        var changed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { return changed }
            changed = buffer.withUnsafeBytes { relevant($0.baseAddress!, count) } || changed
        }
    }
}
