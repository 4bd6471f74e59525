import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tries TCP connections, all at once, each for at most `timeout`: what
/// `shield test` learns about whether a program could reach an address.
enum TCPProbe {
    enum Outcome: Equatable {
        case connected
        /// Refused, reset, or rejected on the way (errno's text).
        case refused(String)
        case noAnswer
    }

    static func attempt(_ addresses: [IPAddress], port: UInt16, timeout: TimeInterval) -> [Outcome] {
        var outcomes = [Outcome](repeating: .noAnswer, count: addresses.count)
        for start in stride(from: 0, to: addresses.count, by: 256) {
            let chunk = start..<min(start + 256, addresses.count)
            var fds: [Int32] = []
            for index in chunk {
                let (fd, immediate) = open(addresses[index], port: port)
                fds.append(fd)
                if let immediate { outcomes[index] = immediate }
            }
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                var waiting = zip(chunk, fds).filter { outcomes[$0.0] == .noAnswer && $0.1 >= 0 }
                    .map { pollfd(fd: $0.1, events: Int16(POLLOUT), revents: 0) }
                guard !waiting.isEmpty else { break }
                guard poll(&waiting, nfds_t(waiting.count), Int32(max(1, deadline.timeIntervalSinceNow * 1_000))) > 0 else { break }
                for ready in waiting where ready.revents != 0 {
                    guard let offset = fds.firstIndex(of: ready.fd) else { continue }
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(ready.fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    outcomes[chunk.lowerBound + offset] = error == 0 ? .connected : .refused(String(cString: strerror(error)))
                }
            }
            fds.filter { $0 >= 0 }.forEach { close($0) }
        }
        return outcomes
    }

    /// A non-blocking socket connecting to `address`; an outcome already
    /// when the connection failed (or succeeded) at once.
    private static func open(_ address: IPAddress, port: UInt16) -> (Int32, Outcome?) {
        let (fd, result, error) = SocketAddress.connect(address, port: port, type: Int32(SOCK_STREAM.rawValue))
        guard fd >= 0 else { return (-1, .refused(String(cString: strerror(error)))) }
        if result == 0 { return (fd, .connected) }
        if error == EINPROGRESS { return (fd, nil) }
        return (fd, .refused(String(cString: strerror(error))))
    }
}

/// The system resolver's answer (`getaddrinfo`: the hosts file, then the
/// DNS, as every program that does not bring its own resolver sees it).
public enum SystemResolver {
    public enum Answer: Sendable {
        case addresses([IPAddress])
        /// Why there are none.
        case none(String)
    }

    @Sendable public static func lookUp(_ name: String) -> Answer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else { return .none(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor = list
        while let entry = cursor?.pointee {
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                let bytes = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) } }
                if let address = IPAddress(bytes: bytes) { addresses.append(address) }
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                let bytes = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) } }
                if let address = IPAddress(bytes: bytes) { addresses.append(address) }
            }
            cursor = entry.ai_next
        }
        var seen = Set<IPAddress>()
        return .addresses(addresses.filter { seen.insert($0).inserted })
    }
}
