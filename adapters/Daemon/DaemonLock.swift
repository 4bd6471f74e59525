import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a daemon runs for a data directory: a running daemon holds an
/// exclusive `flock` on `DATA_DIR/daemon.lock` and has written its pid in it.
/// The kernel drops the lock when the daemon exits or is killed, so a stale
/// file never claims a dead daemon is alive.
public struct DaemonLock: Sendable {
    public let path: String

    public init(dataDirectory: String) {
        path = dataDirectory + "/daemon.lock"
    }

    /// The running daemon's pid, or nil when none holds the lock.
    public func runningPID() -> Int32? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        let bytes = (try? POSIXFiles.readAll(fd, path: path)) ?? []
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
