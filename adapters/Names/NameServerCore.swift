import CRetimeLinux
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The name layer resolver's state, always used under its server's lock:
/// the users' sockets, the UDP queries forwarded and the TCP connections
/// in flight, each bounded and with a deadline.
struct NameServerCore {
    let epoll: Int32
    let timer: DeadlineTimer
    let upstream: NameServer.Upstream
    let limits: NameServer.Limits
    private(set) var servers: [IPAddress] = []
    private(set) var refused = 0
    private(set) var forwarded = 0

    private enum Role { case timer, udp(UInt32), listener(UInt32), client, upstreamStream, upstreamDatagram }

    private struct Listener {
        var fds: [Int32]
        var ports: NameRedirect.Ports
    }

    /// A UDP query forwarded under an id of the service's choosing.
    private struct Pending {
        var uid: UInt32
        var socket: Int32
        var asker: Datagram.Peer
        var id: UInt16
        var query: [UInt8]
        var server: Int
        var retryAt: Date
        var deadline: Date
    }

    private var roles: [Int32: Role] = [:]
    private var blocked: [UInt32: BlockedNames] = [:]
    private var listeners: [UInt32: Listener] = [:]
    private var pending: [UInt16: Pending] = [:]
    private var upstreamDatagrams: [Bool: Int32] = [:]
    private var connections: [Int32: NameConnection] = [:]
    /// Each upstream stream's client.
    private var clientOf: [Int32: Int32] = [:]
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    init(epoll: Int32, timer: DeadlineTimer, upstream: NameServer.Upstream, limits: NameServer.Limits) {
        self.epoll = epoll
        self.timer = timer
        self.upstream = upstream
        self.limits = limits
        roles[timer.descriptor] = .timer
    }

    // MARK: Users

    mutating func serve(_ wanted: [UInt32: BlockedNames]) throws -> [UInt32: NameRedirect.Ports] {
        servers = (DNSResolver.nameservers(in: upstream.configuration) ?? []).compactMap(IPText.parse)
        blocked = wanted
        for uid in listeners.keys where wanted[uid] == nil { closeUser(uid) }
        for uid in wanted.keys.sorted() where listeners[uid] == nil {
            var fds: [Int32] = []
            func open(_ v6: Bool, _ type: __socket_type) -> UInt16? {
                guard let (fd, port) = Datagram.loopback(v6: v6, type: Int32(type.rawValue)) else { return nil }
                fds.append(fd)
                roles[fd] = type == SOCK_DGRAM ? .udp(uid) : .listener(uid)
                _ = retime_epoll_watch(epoll, fd, 0)
                return port
            }
            guard let udp4 = open(false, SOCK_DGRAM), let tcp4 = open(false, SOCK_STREAM) else {
                for fd in fds { forget(fd) }
                throw FirewallError.nft("no loopback socket for the resolver: \(POSIXFiles.reason())")
            }
            let udp6 = open(true, SOCK_DGRAM), tcp6 = open(true, SOCK_STREAM)
            listeners[uid] = Listener(fds: fds, ports: .init(udp4: udp4, tcp4: tcp4, udp6: udp6, tcp6: udp6 == nil ? nil : tcp6))
        }
        return listeners.mapValues(\.ports)
    }

    private mutating func closeUser(_ uid: UInt32) {
        for fd in listeners.removeValue(forKey: uid)?.fds ?? [] { forget(fd) }
        for (fd, connection) in connections where connection.uid == uid { closeConnection(fd) }
        pending = pending.filter { $0.value.uid != uid }
    }

    mutating func closeAll() {
        for uid in Array(listeners.keys) { closeUser(uid) }
        for fd in upstreamDatagrams.values { forget(fd) }
        upstreamDatagrams.removeAll()
    }

    private mutating func forget(_ fd: Int32) {
        retime_epoll_forget(epoll, fd)
        roles[fd] = nil
        close(fd)
    }

    // MARK: Serving

    mutating func handleReady() {
        var fds = [Int32](repeating: 0, count: Int(limits.eventsPerWake)), writable = fds
        let count = Int(retime_epoll_ready(epoll, &fds, &writable, limits.eventsPerWake))
        for index in 0..<max(0, count) {
            let fd = fds[index]
            switch roles[fd] {
            case .timer: _ = timer.takeExpiry()
            case .udp(let uid): answerDatagrams(fd, uid: uid)
            case .listener(let uid): accept(fd, uid: uid)
            case .upstreamDatagram: relayDatagrams(fd)
            case .client: clientReady(fd, writable: writable[index] != 0)
            case .upstreamStream: upstreamReady(fd, writable: writable[index] != 0)
            case nil: retime_epoll_forget(epoll, fd)
            }
        }
        expire(Date())
    }

    /// A user's queries over UDP, a bounded number.
    private mutating func answerDatagrams(_ fd: Int32, uid: UInt32) {
        for _ in 0..<limits.datagramsPerSocket {
            guard let (query, asker) = Datagram.receive(fd, into: &buffer) else { return }
            guard let (labels, end) = DNSMessage.question(of: query) else { continue }
            if blocked[uid]?.covering(labels: labels) != nil {
                refused += 1
                Datagram.send(fd, DNSMessage.refusal(to: query, questionEnd: end), to: asker)
                continue
            }
            let mine = pending.values.lazy.filter { $0.uid == uid }.count
            guard pending.count < limits.pending, mine < limits.pendingPerUser, let server = servers.first else { continue }
            var id = UInt16.random(in: .min ... .max)
            while pending[id] != nil { id &+= 1 }
            let now = Date()
            pending[id] = Pending(uid: uid, socket: fd, asker: asker, id: DNSMessage.id(of: query), query: query, server: 0,
                                  retryAt: now.addingTimeInterval(limits.retry), deadline: now.addingTimeInterval(limits.giveUp))
            send(DNSMessage.with(id: id, query), to: server)
            forwarded += 1
        }
    }

    private mutating func send(_ query: [UInt8], to server: IPAddress) {
        let fd: Int32
        if let open = upstreamDatagrams[server.isV4] { fd = open } else {
            fd = Datagram.upstream(v6: !server.isV4)
            guard fd >= 0 else { return }
            upstreamDatagrams[server.isV4] = fd
            roles[fd] = .upstreamDatagram
            _ = retime_epoll_watch(epoll, fd, 0)
        }
        Datagram.send(fd, query, to: server, port: upstream.port)
    }

    /// The servers' answers, each back to its asker with its own id.
    private mutating func relayDatagrams(_ fd: Int32) {
        for _ in 0..<limits.datagramsPerSocket {
            guard let (answer, from) = Datagram.receive(fd, into: &buffer) else { return }
            guard answer.count >= 12, let query = pending[DNSMessage.id(of: answer)], let (address, port) = from.address,
                  port == upstream.port, servers.indices.contains(query.server), servers[query.server] == address else { continue }
            pending[DNSMessage.id(of: answer)] = nil
            Datagram.send(query.socket, DNSMessage.with(id: query.id, answer), to: query.asker)
        }
    }

    // MARK: TCP

    private mutating func accept(_ listener: Int32, uid: UInt32) {
        for _ in 0..<8 {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let mine = connections.values.lazy.filter { $0.uid == uid }.count
            guard connections.count < limits.connections, mine < limits.connectionsPerUser else { close(fd); continue }
            connections[fd] = NameConnection(uid: uid, deadline: Date().addingTimeInterval(limits.streamTimeout))
            roles[fd] = .client
            _ = retime_epoll_watch(epoll, fd, 0)
        }
    }

    private mutating func clientReady(_ fd: Int32, writable: Bool) {
        guard var connection = connections[fd] else { return forget(fd) }
        if writable, !Self.flush(epoll, fd, &connection.output) { return closeConnection(fd) }
        guard let bytes = Datagram.read(fd, into: &buffer) else { return closeConnection(fd) }
        connection.input += bytes
        guard connection.input.count <= 2 + 65_535 * 2 else { return closeConnection(fd) }
        connections[fd] = connection
        nextQuery(fd)
    }

    /// Takes the connection's next whole query, if it is not waiting on
    /// one already: refused at once, or sent upstream on a stream of its own.
    private mutating func nextQuery(_ fd: Int32) {
        guard var connection = connections[fd], connection.upstream < 0, let query = connection.takeQuery() else { return }
        connection.deadline = Date().addingTimeInterval(limits.streamTimeout)
        // Bytes whose question cannot be read are not forwarded.
        guard let (labels, end) = DNSMessage.question(of: query) else { return closeConnection(fd) }
        if blocked[connection.uid]?.covering(labels: labels) != nil {
            refused += 1
            connection.output += NameConnection.framed(DNSMessage.refusal(to: query, questionEnd: end))
            connections[fd] = connection
            guard Self.flush(epoll, fd, &connections[fd]!.output) else { return closeConnection(fd) }
            return nextQuery(fd)
        }
        guard let server = servers.first else { return closeConnection(fd) }
        let (stream, result, error) = SocketAddress.connect(server, port: upstream.port, type: Int32(SOCK_STREAM.rawValue))
        guard stream >= 0, result == 0 || error == EINPROGRESS else {
            if stream >= 0 { close(stream) }
            return closeConnection(fd)
        }
        forwarded += 1
        connection.upstream = stream
        connection.upstreamOutput = NameConnection.framed(query)
        connections[fd] = connection
        roles[stream] = .upstreamStream
        clientOf[stream] = fd
        _ = retime_epoll_watch(epoll, stream, 1)
    }

    private mutating func upstreamReady(_ stream: Int32, writable: Bool) {
        guard let fd = clientOf[stream], var connection = connections[fd] else { return forget(stream) }
        if writable {
            guard Datagram.connectError(stream) == 0, Self.flush(epoll, stream, &connection.upstreamOutput) else { return closeConnection(fd) }
            connections[fd] = connection
            if connection.upstreamOutput.isEmpty { _ = retime_epoll_watch(epoll, stream, 0) }
        }
        guard let bytes = Datagram.read(stream, into: &buffer) else { return closeConnection(fd) }
        connection.upstreamInput += bytes
        guard let answer = connection.takeAnswer() else { connections[fd] = connection; return }
        clientOf[stream] = nil
        forget(stream)
        connection.upstream = -1
        connection.output += answer
        connections[fd] = connection
        guard Self.flush(epoll, fd, &connections[fd]!.output) else { return closeConnection(fd) }
        nextQuery(fd)
    }

    /// Writes what it can; watches for room while some is left. False when
    /// the peer is gone.
    private static func flush(_ epoll: Int32, _ fd: Int32, _ output: inout [UInt8]) -> Bool {
        guard !output.isEmpty else { return true }
        guard let sent = Datagram.write(fd, output) else { return false }
        output.removeFirst(sent)
        _ = retime_epoll_watch(epoll, fd, output.isEmpty ? 0 : 1)
        return true
    }

    private mutating func closeConnection(_ fd: Int32) {
        if let connection = connections.removeValue(forKey: fd), connection.upstream >= 0 {
            clientOf[connection.upstream] = nil
            forget(connection.upstream)
        }
        if roles[fd] != nil { forget(fd) }
    }

    // MARK: Deadlines

    /// Drops what has had its time, sends late UDP queries to the next
    /// server, and sets the timer for the next deadline.
    private mutating func expire(_ now: Date) {
        for (id, query) in pending {
            if query.deadline <= now {
                pending[id] = nil
            } else if query.retryAt <= now, servers.count > 1 {
                pending[id]!.server = (query.server + 1) % servers.count
                pending[id]!.retryAt = now.addingTimeInterval(limits.retry)
                send(DNSMessage.with(id: id, query.query), to: servers[pending[id]!.server])
            }
        }
        for (fd, connection) in connections where connection.deadline <= now { closeConnection(fd) }
        let next = (pending.values.map { min($0.retryAt, $0.deadline) } + connections.values.map(\.deadline)).min()
        timer.arm(next)
    }
}
