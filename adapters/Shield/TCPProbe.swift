import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tries TCP connections, all at once, each for at most `timeout`: what
/// `shield test` learns about whether a program could reach an address.
enum TCPProbe {
    /// An address and a port.
    struct Endpoint: Hashable, CustomStringConvertible {
        var address: IPAddress
        var port: UInt16
        var description: String { address.isV4 ? "\(address):\(port)" : "[\(address)]:\(port)" }
    }

    enum Outcome: Equatable {
        case connected
        /// The host, or a firewall on the way, said no at once (refused,
        /// reset, or not permitted): a program is turned away too.
        case refused(String)
        /// This machine has no route to that network (no IPv6, say): a
        /// browser turns to the target's other addresses.
        case noRoute(String)
        /// No answer in time, or an error that says nothing of the target
        /// (a host unreachable on the way): whether it could be reached is
        /// not known.
        case unreached(String)

        /// What the outcome says, in a few words.
        var words: String {
            switch self {
            case .connected: "accepts"
            case .refused(let reason), .noRoute(let reason), .unreached(let reason): reason
            }
        }
    }

    /// The ports a browser uses: plain HTTP and HTTPS.
    static let webPorts: [UInt16] = [80, 443]

    /// What a set of outcomes says of the target behind them: `open` when
    /// one connected; `blocked` when one was refused and the rest were
    /// refused or have no route; else (nothing tried, or something not
    /// answered) `unknown`.
    static func verdict(_ outcomes: [Outcome]) -> ShieldVerdict {
        if outcomes.contains(.connected) { return .open }
        let refused = outcomes.contains { if case .refused = $0 { true } else { false } }
        let unreached = outcomes.contains { if case .unreached = $0 { true } else { false } }
        return refused && !unreached ? .blocked : .unknown
    }

    static func attempt(_ endpoints: [Endpoint], timeout: TimeInterval) -> [Outcome] {
        let waited = "no answer in \(timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)) s"
        var outcomes = [Outcome?](repeating: nil, count: endpoints.count)
        for start in stride(from: 0, to: endpoints.count, by: 256) {
            let chunk = start..<min(start + 256, endpoints.count)
            var fds: [Int32] = []
            for index in chunk {
                let (fd, immediate) = open(endpoints[index])
                fds.append(fd)
                if let immediate { outcomes[index] = immediate }
            }
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                var waiting = zip(chunk, fds).filter { outcomes[$0.0] == nil && $0.1 >= 0 }
                    .map { pollfd(fd: $0.1, events: Int16(POLLOUT), revents: 0) }
                guard !waiting.isEmpty else { break }
                guard poll(&waiting, nfds_t(waiting.count), Int32(max(1, deadline.timeIntervalSinceNow * 1_000))) > 0 else { break }
                for ready in waiting where ready.revents != 0 {
                    guard let offset = fds.firstIndex(of: ready.fd) else { continue }
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(ready.fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    outcomes[chunk.lowerBound + offset] = error == 0 ? .connected : classify(error)
                }
            }
            fds.filter { $0 >= 0 }.forEach { close($0) }
        }
        return outcomes.map { $0 ?? .unreached(waited) }
    }

    /// A non-blocking socket connecting to `endpoint`; an outcome already
    /// when the connection failed (or succeeded) at once.
    private static func open(_ endpoint: Endpoint) -> (Int32, Outcome?) {
        let (fd, result, error) = SocketAddress.connect(endpoint.address, port: endpoint.port, type: Int32(SOCK_STREAM.rawValue))
        guard fd >= 0 else { return (-1, classify(error)) }
        if result == 0 { return (fd, .connected) }
        if error == EINPROGRESS { return (fd, nil) }
        return (fd, classify(error))
    }

    private static func classify(_ error: Int32) -> Outcome {
        let reason = String(cString: strerror(error)).lowercased()
        switch error {
        case ECONNREFUSED, ECONNRESET, ECONNABORTED, EACCES, EPERM: return .refused(reason)
        case ENETUNREACH, EAFNOSUPPORT, EADDRNOTAVAIL: return .noRoute(reason)
        default: return .unreached(reason)
        }
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
