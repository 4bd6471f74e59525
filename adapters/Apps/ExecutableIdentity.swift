#if canImport(Glibc)
import Glibc
#endif

/// Which file a process runs, as the kernel tells files apart: its device
/// and inode. A hard link, a symlink, a renamed link or `exec -a` change the
/// name a process goes by, never this.
struct ExecutableIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The file at `path`, through symlinks; nil unless it is a regular file.
    static func of(path: String) -> ExecutableIdentity? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return ExecutableIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The file process `pid` runs: `/proc/PID/exe` stats as that file, even
    /// once it is deleted or renamed.
    static func running(_ pid: Int32) -> ExecutableIdentity? {
        of(path: "/proc/\(pid)/exe")
    }

    /// How many names (hard links) the file at `path` has.
    static func links(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_nlink) : 0
    }
}
