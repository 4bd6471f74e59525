import CRetimeLinux
import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The name layer's resolver: for each blocking user, UDP and TCP sockets
/// on loopback (127.0.0.1 and ::1) that the user's redirected DNS reaches.
/// A question about a name the user blocks (or any name below one) is
/// answered "no such name" at once; any other query is forwarded as it
/// came (its id aside) to the system's resolvers and their answer relayed.
/// Every socket is non-blocking and sits behind one epoll descriptor, which
/// the service's loop polls (`descriptor`) and serves (`serve()`) a bounded
/// amount at a time: a user's flood of queries costs others a few
/// microseconds per wake-up, never a wait, and its pending queries are
/// capped, each with a deadline.
final class NameServer: Sendable {
    /// Limits on what the service keeps for queries in flight.
    struct Limits: Sendable {
        var pending = 1_024
        var pendingPerUser = 256
        var connections = 64
        var connectionsPerUser = 16
        /// A forwarded UDP query goes to the next server after this, and is
        /// dropped (the asker asks again) after `giveUp`.
        var retry: TimeInterval = 1.5
        var giveUp: TimeInterval = 4
        /// How long a TCP client may take to send a query, or the upstream to answer it.
        var streamTimeout: TimeInterval = 5
        /// Work per wake-up: ready descriptors, and datagrams per socket.
        var eventsPerWake: Int32 = 64
        var datagramsPerSocket = 32
    }

    /// Where the forwarded queries go: the system's resolvers (their port:
    /// 53, but for a test's own), read again whenever the blocks change.
    struct Upstream: Sendable {
        var configuration: String
        var port: UInt16
    }

    let descriptor: Int32
    /// The resolv.conf the upstream servers are read from.
    let upstreamConfiguration: String
    private let core: Mutex<NameServerCore>

    init(upstream: Upstream, limits: Limits = Limits()) throws {
        let epoll = retime_epoll_create()
        guard epoll >= 0 else { throw FirewallError.nft("epoll: \(POSIXFiles.reason())") }
        let timer = try DeadlineTimer()
        _ = retime_epoll_watch(epoll, timer.descriptor, 0)
        descriptor = epoll
        upstreamConfiguration = upstream.configuration
        core = Mutex(NameServerCore(epoll: epoll, timer: timer, upstream: upstream, limits: limits))
    }

    deinit {
        core.withLock { $0.closeAll() }
        close(descriptor)
    }

    /// Serves exactly the users in `blocked` (their names refused): opens
    /// sockets for a user new to it, closes those of a user no longer in
    /// it; returns each user's ports. Throws when a user's sockets cannot
    /// be made.
    func serve(_ blocked: [UInt32: BlockedNames]) throws -> [UInt32: NameRedirect.Ports] {
        try core.withLock { try $0.serve(blocked) }
    }

    /// Handles what is ready now, a bounded amount.
    func handle() {
        core.withLock { $0.handleReady() }
    }

    /// The servers queries are forwarded to, and how many were refused and forwarded.
    func statistics() -> (servers: [IPAddress], refused: Int, forwarded: Int) {
        core.withLock { ($0.servers, $0.refused, $0.forwarded) }
    }
}
