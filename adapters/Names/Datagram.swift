import Domain
#if canImport(Glibc)
import Glibc
#endif

/// The socket calls the name layer's resolver makes: sockets bound on
/// loopback for a user's redirected DNS, datagrams with their peer's
/// address, and non-blocking stream reads and writes.
enum Datagram {
    /// A peer's address as the socket calls give and take it.
    struct Peer {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)

        /// The address and port, when it is an internet address.
        var address: (IPAddress, UInt16)? {
            var copy = storage
            return withUnsafePointer(to: &copy) { pointer -> (IPAddress, UInt16)? in
                switch Int32(storage.ss_family) {
                case AF_INET:
                    return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var address = v4.pointee.sin_addr
                        return IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { ($0, UInt16(bigEndian: v4.pointee.sin_port)) }
                    }
                case AF_INET6:
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var address = v6.pointee.sin6_addr
                        return IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { ($0, UInt16(bigEndian: v6.pointee.sin6_port)) }
                    }
                default: return nil
                }
            }
        }
    }

    /// A non-blocking, close-on-exec socket of `type` bound to loopback
    /// (127.0.0.1, or ::1 only) on a port the kernel picks, listening if it
    /// is a stream: the descriptor and the port, or nil.
    static func loopback(v6: Bool, type: Int32) -> (fd: Int32, port: UInt16)? {
        let fd = socket(v6 ? AF_INET6 : AF_INET, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        if v6 {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var (storage, length) = SocketAddress.make(IPAddress(bytes: v6 ? Array(repeating: 0, count: 15) + [1] : [127, 0, 0, 1])!, port: 0)
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, type != Int32(SOCK_STREAM.rawValue) || listen(fd, 64) == 0 else { close(fd); return nil }
        var peer = Peer()
        let named = withUnsafeMutablePointer(to: &peer.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &peer.length) }
        }
        guard named == 0, let port = peer.address?.1 else { close(fd); return nil }
        return (fd, port)
    }

    /// One datagram and who sent it; nil when none is waiting (or it is empty).
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> ([UInt8], Peer)? {
        var peer = Peer()
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &peer.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &peer.length) }
            }
        }
        guard count > 0 else { return count == 0 ? ([], peer) : nil }
        return (Array(buffer[..<count]), peer)
    }

    /// Sends one datagram to `peer`, never waiting (a full buffer drops it,
    /// as the network may: the asker asks again).
    static func send(_ fd: Int32, _ bytes: [UInt8], to peer: Peer) {
        var storage = peer.storage
        _ = bytes.withUnsafeBytes { data in
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, data.baseAddress, data.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, peer.length) }
            }
        }
    }

    /// Sends one datagram to `address` on `port`.
    static func send(_ fd: Int32, _ bytes: [UInt8], to address: IPAddress, port: UInt16) {
        let (storage, length) = SocketAddress.make(address, port: port)
        var peer = Peer()
        peer.storage = storage
        peer.length = length
        send(fd, bytes, to: peer)
    }

    /// An unbound, non-blocking datagram socket of `address`'s family: the
    /// service's own (root's, so never redirected) to the upstream servers.
    static func upstream(v6: Bool) -> Int32 {
        socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Writes what it can of `bytes` to a stream; how much went (0 when it
    /// would block), or nil when the peer is gone.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Int? {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if sent >= 0 { return sent }
        return errno == EAGAIN || errno == EINTR ? 0 : nil
    }

    /// Reads what a stream has; empty when nothing is waiting, nil when the
    /// peer closed or failed.
    static func read(_ fd: Int32, into buffer: inout [UInt8]) -> [UInt8]? {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 { return Array(buffer[..<count]) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return [] }
        return nil
    }

    /// The error a non-blocking connect ended with (0 when it connected).
    static func connectError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }
}
