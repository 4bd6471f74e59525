import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Whether a daemon runs for a data directory: a running daemon holds an
/// exclusive `flock` on `path` (`DATA_DIR/devices/<id>/daemon.lock`) and
/// has written its pid in it. `legacyPath` is where a daemon of an older
/// retime holds it (`DATA_DIR/daemon.lock`): one still running through an
/// upgrade is seen there, by `daemon status` and by a daemon that would
/// start beside it.
/// The kernel drops the lock when the daemon exits or is killed, so a stale
/// file never claims a dead daemon is alive, and only one daemon can run.
public struct DaemonLock: DaemonPresence {
    public let path: String
    public let legacyPath: String?

    /// The lock of the state directory `dataDirectory` (the system service's).
    public init(dataDirectory: String) {
        self.init(path: dataDirectory + "/daemon.lock")
    }

    public init(path: String, legacyPath: String? = nil) {
        self.path = path
        self.legacyPath = legacyPath
    }

    /// The running daemon's pid, or nil when none holds the lock.
    public func runningPID() -> Int32? {
        Self.holder(of: path) ?? legacyPath.flatMap(Self.holder(of:))
    }

    /// The pid in the lock file at `path` while a process holds it.
    private static func holder(of path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard (try? POSIXFiles.requireRegular(fd, path: path)) != nil else { return nil }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        let bytes = (try? POSIXFiles.readAll(fd, path: path)) ?? []
        return Int32(String(decoding: bytes, as: UTF8.self).trimmed) ?? 0
    }

    /// When the running daemon took the lock (it writes its pid then).
    public func runningSince() -> Date? {
        let held = Self.holder(of: path) != nil ? path : legacyPath.flatMap { Self.holder(of: $0) != nil ? $0 : nil }
        guard let held, let status = try? POSIXFiles.linkStatus(held) else { return nil }
        return Date(timeIntervalSince1970: Double(status.modifiedNanoseconds) / 1e9)
    }

    /// Takes the lock for this process and writes its pid, or says which
    /// daemon already holds it.
    public func acquire() throws -> HeldDaemonLock {
        try POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path))
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            if errno == EISDIR { throw StoreError.notRegularFile(path: path, kind: "directory") }
            throw StoreError.notWritable(path: path, reason: POSIXFiles.reason())
        }
        do { try POSIXFiles.requireRegular(fd, path: path) } catch {
            close(fd)
            throw error
        }
        // `runningPID` (any `daemon status`) holds a shared lock for an
        // instant: only a lock still held after a short wait is a daemon.
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        for _ in 0..<50 where !locked {
            usleep(10_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            let pid = Int32(String(decoding: (try? POSIXFiles.readAll(fd, path: path)) ?? [], as: UTF8.self)
                .trimmed) ?? 0
            close(fd)
            throw DaemonError.alreadyRunning(pid: pid, lock: path)
        }
        if let legacyPath, let pid = Self.holder(of: legacyPath) {
            close(fd)
            throw DaemonError.alreadyRunning(pid: pid, lock: legacyPath)
        }
        ftruncate(fd, 0)
        try POSIXFiles.writeAll(fd, Array("\(getpid())\n".utf8), path: path)
        return HeldDaemonLock(fd: fd)
    }
}

/// The daemon lock while this process holds it; released on `release()` or exit.
public final class HeldDaemonLock: Sendable {
    private let fd: Int32

    init(fd: Int32) { self.fd = fd }

    public func release() {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// Why the daemon cannot run.
public enum DaemonError: RetimeError, Equatable {
    case alreadyRunning(pid: Int32, lock: String)
    case unavailable(String)

    public var code: String {
        switch self {
        case .alreadyRunning: "daemon.alreadyRunning"
        case .unavailable: "daemon.unavailable"
        }
    }

    public var kind: ErrorKind { .domain }

    public var description: String {
        switch self {
        case .alreadyRunning(let pid, let lock): "a retime daemon already runs for this data directory (pid \(pid), \(lock))"
        case .unavailable(let reason): "the daemon cannot run here: \(reason)"
        }
    }
}

extension DaemonLock {
    /// The daemon holding this data directory's lock, if one does.
    public func running() -> RunningDaemon? {
        runningPID().map { RunningDaemon(pid: $0, since: runningSince()) }
    }
}
