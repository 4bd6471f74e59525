import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager that the system service is ready: its blocks
/// restored and its socket listening (`sd_notify(3)`'s `READY=1`, sent to
/// `$NOTIFY_SOCKET` by hand). With `Type=notify`, units ordered after it
/// (`systemd-user-sessions.service`: logins) wait for this, not merely for
/// the process to start: no user can log in while a block is still down.
public enum ServiceReadiness {
    /// Sends `READY=1` where `environment` names a notify socket; does
    /// nothing elsewhere (run by hand, or by another manager).
    public static func announce(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108 else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // An abstract socket is named with a leading '@', sent as a NUL.
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array("READY=1".utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, 0, $0, length) }
        }
    }
}
