import Domain
import FoundationEssentials
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
    /// the file (if any) is readable, a new file can be created beside it
    /// and put in its place, and it is not a mount point of its own (a
    /// bind-mounted hosts file, as containers have, cannot be replaced by a
    /// rename). Nothing is changed: the probe file is removed at once.
    public func authorization() async -> ShieldAuthorization {
        let directory = POSIXFiles.parentDirectory(of: path)
        var fileStatus = stat(), directoryStatus = stat()
        guard stat(directory.isEmpty ? "." : directory, &directoryStatus) == 0 else { return .denied }
        if stat(path, &fileStatus) == 0, fileStatus.st_dev != directoryStatus.st_dev { return .denied }
        return permissionProblem() == nil ? .approved : .denied
    }

    /// Why this user may not read the file or write its block (a file made
    /// beside it, renamed over it), in words; nil when nothing forbids it.
    public func permissionProblem() -> String? {
        let directory = POSIXFiles.parentDirectory(of: path).isEmpty ? "." : POSIXFiles.parentDirectory(of: path)
        func denied(_ code: Int32) -> Bool { code == EACCES || code == EPERM }
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)   // a FIFO there must not hold `auth request` up
        if file >= 0 { close(file) } else if denied(errno) { return "you may not read it (\(String(cString: strerror(errno)).lowercased()))" }
        let probe = "\(directory)/.retime-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            return denied(code) ? "you may not create files in \(directory) (\(String(cString: strerror(code)).lowercased()))" : nil
        }
        close(fd)
        unlink(probe)
        // In a sticky directory (/tmp) only a file's owner may replace it.
        var fileStatus = stat(), directoryStatus = stat()
        if geteuid() != 0, stat(path, &fileStatus) == 0, stat(directory, &directoryStatus) == 0,
           directoryStatus.st_mode & S_ISVTX != 0, fileStatus.st_uid != geteuid(), directoryStatus.st_uid != geteuid() {
            return "it is another user's, in a directory where only its owner may replace it"
        }
        return nil
    }
}

extension InMemoryShield: ShieldAuthorizationProbe {
    /// In memory there is nothing to deny.
    public func authorization() async -> ShieldAuthorization { .approved }
}
