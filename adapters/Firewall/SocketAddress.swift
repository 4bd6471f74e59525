import Domain
#if canImport(Glibc)
import Glibc
#endif

/// An address and port as the socket calls take them.
enum SocketAddress {
    /// `sockaddr_in` or `sockaddr_in6` in a `sockaddr_storage`, and its length.
    static func make(_ address: IPAddress, port: UInt16) -> (storage: sockaddr_storage, length: socklen_t) {
        var storage = sockaddr_storage()
        if address.isV4 {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeBytes(of: &v4) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.bytes) }
        withUnsafeBytes(of: &v6) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
        return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
    }

    /// A non-blocking, close-on-exec socket of `type` connected (or
    /// connecting) to `address`: the descriptor and connect's result and
    /// errno (-1 when no socket could be made).
    static func connect(_ address: IPAddress, port: UInt16, type: Int32) -> (fd: Int32, result: Int32, error: Int32) {
        let fd = socket(address.isV4 ? AF_INET : AF_INET6, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return (-1, -1, errno) }
        var (storage, length) = make(address, port: port)
        let result = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) } }
        return (fd, result, result == 0 ? 0 : errno)
    }
}
