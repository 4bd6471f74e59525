import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Whether the system service is installed on this machine, answering or
/// not: once it is, a user's block must go through it, and a client that
/// cannot reach it says so instead of starting a session with nothing
/// blocked (`auto` never degrades silently).
public enum SystemServicePresence {
    /// The systemd system unit `system install` writes.
    public static let unitPath = "/etc/systemd/system/retime-shield.service"

    /// Installed when a socket is bound at `socketPath` (the service made
    /// it; it stays while the service restarts, is stopped or is stalled),
    /// or, for the default socket, when the unit is installed (a stopped
    /// service may have had its socket cleaned away). A socket elsewhere
    /// (`$RETIME_SHIELD_SOCKET`) is another service: the unit says nothing
    /// of it.
    public static func isInstalled(socketPath: String, unitPath: String = unitPath) -> Bool {
        var status = stat()
        if lstat(socketPath, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { return true }
        return socketPath == ShieldClient.defaultSocket && access(unitPath, F_OK) == 0
    }
}
