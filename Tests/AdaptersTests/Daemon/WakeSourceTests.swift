#if os(Linux)
import Adapters
import Foundation
import Testing

/// The daemon's wait, on real descriptors: a time-zone file replaced wakes
/// it; anything else in that directory does not.
@Suite("WakeSource: what wakes the daemon")
struct WakeSourceTests {
    let store = TemporaryDirectory()
    let etc = TemporaryDirectory()

    /// Replaces `localtime` the way `timedatectl set-timezone` does: a new
    /// symlink renamed over the old one.
    func setZone(_ zone: String) throws {
        try? FileManager.default.removeItem(atPath: etc.file(".localtime.new"))
        try FileManager.default.createSymbolicLink(atPath: etc.file(".localtime.new"), withDestinationPath: "/usr/share/zoneinfo/" + zone)
        #expect(rename(etc.file(".localtime.new"), etc.file("localtime")) == 0)
    }

    @Test("replacing the zone file wakes it as a time-zone change; other files there and their churn do not")
    func timeZoneChange() async throws {
        try setZone("Etc/UTC")
        let wake = try WakeSource(watching: store.path, timeZoneFiles: [etc.file("localtime")])
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
        let wake = try WakeSource(watching: store.path, timeZoneFiles: [etc.file("localtime")])
        try "{}".write(toFile: store.file("session.json"), atomically: true, encoding: .utf8)
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .dataChanged)
    }

    @Test("the store's own locks, temp files and backups do not wake it: a pass that only reads sleeps on")
    func locksDoNotWake() async throws {
        let wake = try WakeSource(watching: store.path, timeZoneFiles: [etc.file("localtime")])
        let files = JSONFileStore(directory: store.path)
        try files.update("intervals") { _ in }                 // a lock taken, nothing written
        try files.update("intervals") { _ in }                 // the lock file exists now: opened, closed
        let temp = open(store.file("groups.json.tmp-1-x"), O_WRONLY | O_CREAT, 0o600)
        close(temp)
        #expect(await wake.wait(until: Date().addingTimeInterval(0.3)) == .deadline)
        try files.update("intervals") { $0["k"] = .bool(true) }
        #expect(await wake.wait(until: Date().addingTimeInterval(30)) == .dataChanged)
    }

    @Test("with no directory to watch for the zone, it says so and still runs")
    func noZoneDirectory() throws {
        let wake = try WakeSource(watching: store.path, timeZoneFiles: [etc.file("missing/localtime")])
        #expect(!wake.followsTimeZone)
    }
}
#endif
