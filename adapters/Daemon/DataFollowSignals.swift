import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What a follower of the data waits on (`retime status --follow`): a
/// change log of any device or this machine's store written, the wall clock
/// set, or its own deadline. The daemon's wait (`WakeSource` on a mailbox)
/// with the daemon's two data watchers, started at once and running until
/// the process ends: a follower is a process of its own with nothing else
/// to stop.
public final class DataFollowSignals: WakeSignals {
    private let source: WakeSource
    private let watchers: [any WakeWatcher]
    public var followsTimeZone: Bool { false }

    /// Watches `store` (this machine's suites) and `devices` (every
    /// device's change logs, devices that appear later included); both are
    /// made if absent, so a follower started before the data folder exists
    /// (or has synced in) sees it appear.
    public init(store: String, devices: String) throws {
        // A follower runs until it is stopped: TERM, INT and HUP end it
        // even when the process that started it left them blocked or
        // ignored (both are inherited; a test harness's are not a shell's),
        // and so does its next line once the bar has closed the pipe.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] {
            sigaddset(&stopping, signal)
            Glibc.signal(signal, SIG_DFL)
        }
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        let mailbox = try WakeMailbox()
        watchers = [try DirectoryWatcher.data(directory: store), try DirectoryWatcher.changeLogs(devices: devices)]
        for watcher in watchers { try watcher.start(posting: mailbox) }
        source = try WakeSource(mailbox: mailbox, followsTimeZone: false)
    }

    public func wait(until deadline: Date?) async -> WakeReason {
        await source.wait(until: deadline)
    }
}
