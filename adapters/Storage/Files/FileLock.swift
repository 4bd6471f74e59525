import Domain
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a lock file, taken with a timeout:
/// a process that holds it too long produces a clear error, never a hang.
/// The lock is released when the holder unlocks, exits or is killed.
struct FileLock: ~Copyable {
    private let fd: Int32

    /// Waits up to `timeout` seconds for the lock on `path` (created 0600,
    /// opened with `flags`). A lock file is opened read-only unless its
    /// holder writes to it: closing a file opened for writing is an inotify
    /// write event, which would wake the daemon at every lock it takes.
    init(path: String, timeout: Double, flags: Int32 = O_RDONLY | O_CREAT) throws {
        // O_NONBLOCK: a FIFO in the file's place would hold the open (for
        // writing) until a reader came; it is refused instead.
        let fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw StoreError.symlinkRefused(path: path) }
            if code == EISDIR { throw StoreError.notRegularFile(path: path, kind: "directory") }
            if code == ENXIO { throw StoreError.notRegularFile(path: path, kind: "FIFO or socket") }
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason(code))
        }
        do { try POSIXFiles.requireRegular(fd, path: path) } catch {
            close(fd)
            throw error
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        var pause: UInt32 = 200
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw StoreError.notWritable(path: path, reason: "flock: \(POSIXFiles.reason(code))")
            }
            guard DispatchTime.now().uptimeNanoseconds < deadline else {
                close(fd)
                throw StoreError.lockTimeout(path: path, seconds: timeout)
            }
            // Contention is short (one small write); back off up to 10 ms.
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
        self.fd = fd
    }

    /// The open lock file, for holders that keep data in it.
    var descriptor: Int32 { fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
