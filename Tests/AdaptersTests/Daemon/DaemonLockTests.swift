#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Foundation
import Testing

/// The single-instance lock against the probe `daemon status` makes: a
/// shared lock held for an instant is not a running daemon.
@Suite("DaemonLock: one daemon, and probes that do not stop it")
struct DaemonLockTests {
    let directory = TemporaryDirectory()

    @Test("a lock held for an instant by a probe does not refuse the daemon; one held on does, naming its pid")
    func probeRace() throws {
        let lock = DaemonLock(dataDirectory: directory.path)
        #expect(FileManager.default.createFile(atPath: lock.path, contents: nil))
        let probe = open(lock.path, O_RDONLY)
        #expect(flock(probe, LOCK_SH) == 0)
        let release = Thread { usleep(100_000); flock(probe, LOCK_UN); close(probe) }
        release.start()
        let held = try lock.acquire()                        // waits out the probe
        #expect(lock.runningPID() == getpid())
        #expect(throws: DaemonError.alreadyRunning(pid: getpid(), lock: lock.path)) { _ = try lock.acquire() }
        held.release()
        #expect(lock.runningPID() == nil)
    }
}
