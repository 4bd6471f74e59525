#if os(Linux)
import Adapters
import Domain
import Foundation
import Testing

/// The daemon's watchers and its wait, on real descriptors: a time-zone
/// file replaced, the data written, a signal raised each wake it as what
/// it is; anything else in those directories does not; a stopped watcher
/// posts nothing more.
@Suite("Wake watchers: what wakes the daemon")
struct WakeWatcherTests {
    let store = TemporaryDirectory()
    let etc = TemporaryDirectory()

    /// Replaces `localtime` the way `timedatectl set-timezone` does: a new
    /// symlink renamed over the old one.
    func setZone(_ zone: String) throws {
        try? FileManager.default.removeItem(atPath: etc.file(".localtime.new"))
        try FileManager.default.createSymbolicLink(atPath: etc.file(".localtime.new"), withDestinationPath: "/usr/share/zoneinfo/" + zone)
        #expect(rename(etc.file(".localtime.new"), etc.file("localtime")) == 0)
    }

    /// The daemon's wait over a started data watcher and time-zone watcher.
    func started() throws -> (wake: WakeSource, watchers: [any WakeWatcher]) {
        let mailbox = try WakeMailbox()
        let zone = try DirectoryWatcher.timeZone(files: [etc.file("localtime")])
        let watchers: [any WakeWatcher] = [try DirectoryWatcher.data(directory: store.path), zone]
        for watcher in watchers { try watcher.start(posting: mailbox) }
        return (try WakeSource(mailbox: mailbox, followsTimeZone: zone.isWatching), watchers)
    }

    @Test("replacing the zone file wakes it as a time-zone change; other files there and their churn do not")
    func timeZoneChange() async throws {
        try setZone("Etc/UTC")
        let (wake, watchers) = try started()
        defer { withExtendedLifetime(watchers) {} }
        #expect(wake.followsTimeZone)
        try "nameserver 10.0.0.1\n".write(toFile: etc.file("resolv.conf"), atomically: true, encoding: .utf8)
        #expect(await wake.wait(until: Date().addingTimeInterval(0.2)) == .deadline)
        try setZone("Asia/Tokyo")
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .timeZoneChanged)
        // The burst was drained: the next wait sleeps until its deadline.
        #expect(await wake.wait(until: Date().addingTimeInterval(0.2)) == .deadline)
    }

    @Test("a write to the data wakes it as a data change")
    func dataChange() async throws {
        let (wake, watchers) = try started()
        defer { withExtendedLifetime(watchers) {} }
        try "{}".write(toFile: store.file("session.json"), atomically: true, encoding: .utf8)
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .dataChanged)
    }

    @Test("the store's own locks, temp files and backups do not wake it: a pass that only reads sleeps on")
    func locksDoNotWake() async throws {
        let (wake, watchers) = try started()
        defer { withExtendedLifetime(watchers) {} }
        let files = JSONFileStore(directory: store.path)
        try files.update("intervals") { _ in }                 // a lock taken, nothing written
        try files.update("intervals") { _ in }                 // the lock file exists now: opened, closed
        let temp = open(store.file("groups.json.tmp-1-x"), O_WRONLY | O_CREAT, 0o600)
        close(temp)
        #expect(await wake.wait(until: Date().addingTimeInterval(0.3)) == .deadline)
        try files.update("intervals") { $0["k"] = .bool(true) }
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .dataChanged)
    }

    @Test("a stopped watcher posts nothing more: a write after the stop lets the wait sleep to its deadline")
    func stoppedWatcherIsQuiet() async throws {
        let (wake, watchers) = try started()
        for watcher in watchers { await watcher.stop() }
        try "{}".write(toFile: store.file("session.json"), atomically: true, encoding: .utf8)
        try setZone("Asia/Tokyo")
        #expect(await wake.wait(until: Date().addingTimeInterval(0.3)) == .deadline)
    }

    @Test("a signal raised while the signal watcher runs is posted, not delivered")
    func signalPosted() async throws {
        let mailbox = try WakeMailbox()
        // SIGUSR2: no other test or runner uses it; its default would end the process.
        let watcher = SignalWatcher([SIGUSR2])
        try watcher.start(posting: mailbox)
        let wake = try WakeSource(mailbox: mailbox, followsTimeZone: false)
        kill(getpid(), SIGUSR2)
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .signal(SIGUSR2))
        await watcher.stop()
    }

    @Test("the mailbox hands a signal out before earlier changes, and a change already waiting is not queued twice")
    func mailboxOrder() throws {
        let mailbox = try WakeMailbox()
        mailbox.post(.dataChanged)
        mailbox.post(.timeZoneChanged)
        mailbox.post(.dataChanged)
        mailbox.post(.signal(SIGTERM))
        #expect(mailbox.take() == .signal(SIGTERM))
        #expect(mailbox.take() == .dataChanged)
        #expect(mailbox.take() == .timeZoneChanged)
        #expect(mailbox.take() == nil)
    }

    @Test("with no directory to watch for the zone, it says so and still runs")
    func noZoneDirectory() throws {
        let zone = try DirectoryWatcher.timeZone(files: [etc.file("missing/localtime")])
        #expect(!zone.isWatching)
    }
}
#endif
