import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Each shield answers `auth request` for itself: the Auth context asks
// through its `ShieldAuthorizationProbe` port, and the composition root
// hands it the configured shield.

extension RecordingShield: ShieldAuthorizationProbe {
    /// The `none` shield enforces nothing, so nothing can deny it.
    public func authorization() async -> ShieldAuthorization { .approved }
}

extension HostsFileShield: ShieldAuthorizationProbe {
    /// Approved when the block could be written the way `raise` writes it:
    /// the file (if any) is readable, a new file can be created beside it,
    /// and it is not a mount point of its own (a bind-mounted hosts file,
    /// as containers have, cannot be replaced by a rename). Nothing is
    /// changed: the probe file is removed at once.
    public func authorization() async -> ShieldAuthorization {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var fileStatus = stat(), directoryStatus = stat()
        guard stat(directory, &directoryStatus) == 0 else { return .denied }
        if stat(path, &fileStatus) == 0 {
            guard fileStatus.st_dev == directoryStatus.st_dev else { return .denied }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .denied }
            close(fd)
        }
        let probe = "\(directory)/.retime-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .denied }
        close(fd)
        unlink(probe)
        return .approved
    }
}

extension InMemoryShield: ShieldAuthorizationProbe {
    /// In memory there is nothing to deny.
    public func authorization() async -> ShieldAuthorization { .approved }
}
