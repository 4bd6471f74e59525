import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The few calls on Unix stream sockets the service and its clients make.
enum UnixSocket {
    /// A `sockaddr_un` for `path`, or nil if the path is too long for one.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// A listening socket at `path`, reachable by every local user (mode
    /// 0666 on the socket; its directory made 0755 if missing). A stale
    /// socket left by a previous run is replaced; any other file is not.
    static func listen(at path: String) throws -> Int32 {
        try POSIXFiles.ensureDirectory(POSIXFiles.parentDirectory(of: path), mode: 0o755)
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK {
            throw DaemonError.unavailable("\(path) exists and is not a socket; remove it or give another --socket")
        }
        guard address(path) != nil else { throw DaemonError.unavailable("the socket path \(path) is too long") }
        // Bound and listening under a name of its own, then renamed into
        // place: a client never finds the path before it is listened on
        // (it would be refused). In place when that name would not fit.
        let staging = address(path + ".\(getpid())") != nil ? path + ".\(getpid())" : path
        var address = address(staging)!
        unlink(staging)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw DaemonError.unavailable("socket: \(POSIXFiles.reason())") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // A deep backlog: a burst of one user's connections waits there with
        // everyone else's instead of turning others away (the kernel caps it
        // at net.core.somaxconn).
        guard bound == 0, chmod(staging, 0o666) == 0, Glibc.listen(fd, 4_096) == 0,
              staging == path || rename(staging, path) == 0 else {
            let reason = POSIXFiles.reason()
            close(fd)
            if bound == 0 { unlink(staging) }
            throw DaemonError.unavailable("cannot listen on \(path): \(reason)")
        }
        return fd
    }

    /// Why a connection failed: the errno (a service restarting refuses,
    /// or its socket is not there yet) and the reason in words.
    struct ConnectFailure: Error {
        var code: Int32
        var error: HeldBlockError
    }

    /// A connected socket to `path`, or why not.
    static func connect(to path: String) -> Result<Int32, ConnectFailure> {
        guard var address = address(path) else { return .failure(.init(code: ENAMETOOLONG, error: .unreachable("the socket path \(path) is too long"))) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.init(code: errno, error: .unreachable("socket: \(POSIXFiles.reason())"))) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno, reason = POSIXFiles.reason()
            close(fd)
            return .failure(.init(code: code, error: .unreachable("\(path): \(reason)")))
        }
        return .success(fd)
    }

    /// The uid the kernel recorded for the peer of `fd`.
    static func peerUID(_ fd: Int32) -> UInt32? {
        var uid: UInt32 = 0
        return retime_peer_uid(fd, &uid) == 0 ? uid : nil
    }

    /// Sends all of `bytes`, waiting up to `seconds` for room (the peer is
    /// a process that may be slow, or gone: no SIGPIPE either way).
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8], within seconds: Double = 1) -> Bool {
        var sent = 0
        let deadline = Date().addingTimeInterval(seconds)
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if count > 0 { sent += count; continue }
            guard count < 0, errno == EAGAIN || errno == EINTR, Date() < deadline else { return false }
            var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&ready, 1, 50)
        }
        return true
    }
}
