import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The system service's one thread of work: a `poll` on the listening
/// socket, every client, a timer at the next block's end, a watch on the
/// files its layers write, and TERM/INT. Every local user shares it, so no
/// user may hold it: each uid has at most `maximumClientsPerUser`
/// connections (its next is refused, never another uid's), a client that
/// sends nothing is cut after `ShieldProtocol.idleTimeout`, and each round
/// answers at most one request per uid, the uid served longest ago first:
/// one user's many requests wait behind each other, never in front of
/// another user's, nor of a block's end. Answers are written as the client
/// reads them; what a client leaves unread is bounded: an answer is at most
/// `maximumAnswer` bytes, and a uid's answers still unsent at most
/// `maximumUnsentPerUser` together (past it its oldest unread are cut,
/// never another uid's).
public final class ShieldServiceLoop: @unchecked Sendable {
    /// The most connections one uid holds at once.
    public static let maximumClientsPerUser = 16
    /// How long a connection may take to send its whole request.
    let requestTimeout: Double
    /// The most connections at once, every uid together: room for 256
    /// users at their limit. When it is full, a user with fewer
    /// connections takes the place of the oldest of the user with most.
    public static let maximumClients = 4_096
    /// The most connections taken from the listener in one round of the loop.
    static let acceptsPerRound = 64
    /// How long a client has to read its answer.
    static let answerTimeout: Double = 5
    /// The longest answer one connection is given: more than any request
    /// asks for (an `inspect` of `ShieldProtocol.maximumInspected` long
    /// names through three layers is about 1 MB); a longer one is refused,
    /// so one connection never holds more.
    public static let maximumAnswer = 4 * 1024 * 1024
    /// The most answer bytes a uid's connections hold unsent at once, all
    /// together; past it the uid's oldest unread answers are cut (the
    /// newest is kept). A client that reads takes its answer as it comes,
    /// and most answers fit the socket's own buffer: only a uid that asks
    /// and does not read reaches it.
    public static let maximumUnsentPerUser = 2 * 1024 * 1024

    private let listener: Int32
    private let timer: DeadlineTimer
    /// Where TERM/INT/HUP and changes of the watched files are posted.
    private let mailbox: WakeMailbox
    private let watchers: [any WakeWatcher]
    private var clients: [Client] = []
    /// The total this process's descriptor limit leaves room for.
    let capacity: Int
    /// The round each uid was last served in: the longest waiting first.
    private var served: [UInt32: Int] = [:]
    private var round = 0

    private struct Client {
        let fd: Int32
        let uid: UInt32
        let accepted: Date
        /// How long it may take to send its whole request.
        let requestTimeout: Double
        var buffer: [UInt8] = []
        /// The whole request line, waiting for its uid's turn.
        var request: [UInt8]?
        /// The answer, and how much of it the client has taken.
        var answer: [UInt8]?
        var sent = 0
        var answeredAt: Date?
        /// The answer's bytes the client has not taken yet.
        var unsent: Int { (answer?.count ?? 0) - sent }

        /// When the client is cut: silent past the idle limit, its request
        /// not whole in time, or its answer not read in time.
        var deadline: Date {
            if let answeredAt { return answeredAt.addingTimeInterval(ShieldServiceLoop.answerTimeout) }
            if request != nil { return .distantFuture }
            return accepted.addingTimeInterval(buffer.isEmpty ? ShieldProtocol.idleTimeout : requestTimeout)
        }
    }

    /// Listens at `socketPath`; wakes when any of `watchedFiles` is changed
    /// by someone else (a hosts file edited by hand). It catches TERM and
    /// INT itself unless `catchingSignals` is false: then `shutDown` ends it
    /// (a service group that owns the process's signals). `requestTimeout`:
    /// how long a connection may take to send its whole request.
    public init(socketPath: String, watchedFiles: [String], catchingSignals: Bool = true,
                requestTimeout: Double = ShieldProtocol.requestTimeout) throws {
        self.requestTimeout = requestTimeout
        capacity = Self.raiseDescriptorLimit(toServe: Self.maximumClients)
        listener = try UnixSocket.listen(at: socketPath)
        timer = try DeadlineTimer()
        mailbox = try WakeMailbox()
        // Without inotify the layers are still rewritten at every pass; a
        // hand edit then waits for the next one.
        watchers = (catchingSignals ? [SignalWatcher()] : []) + [try? DirectoryWatcher.files(watchedFiles, name: "layers")].compactMap { $0 }
        for watcher in watchers { try watcher.start(posting: mailbox) }
    }

    /// Ends `run` as TERM does (its last pass written); safe from any thread.
    public func shutDown(signal: Int32 = SIGTERM) {
        mailbox.post(.signal(signal))
    }

    deinit {
        clients.forEach { close($0.fd) }
        close(listener)
    }

    /// Serves until TERM or INT: `pass` at start (unless the caller made
    /// it and gives its deadline as `first`), at each deadline it
    /// returns (before any request waiting in that round), after a round
    /// whose requests changed something and when a watched file changes;
    /// `handle` answers one request line from a caller the kernel names by
    /// uid, and says whether it changed the blocks. The last `pass` runs
    /// after the signal, so progress is written. `sources` are waited on
    /// too (the app layer's process events), each handled when its
    /// descriptor is readable.
    public func run(sources: [any ServiceEventSource] = [], first: Date?? = nil, pass: () async -> Date?,
                    handle: (UInt32, [UInt8]) async -> (answer: [UInt8], changed: Bool)) async {
        if let first { timer.arm(first) } else { timer.arm(await pass()) }
        while true {
            var fds = [pollfd(fd: mailbox.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: timer.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            // A negative descriptor is skipped by poll: a source with nothing to wait for.
            fds += sources.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let first = fds.count, sourcesFrom = 3
            fds += clients.map { client in
                // A whole request waits for its turn: nothing more is read from it.
                let events = client.answer != nil ? POLLOUT : client.request == nil ? POLLIN : 0
                return pollfd(fd: client.fd, events: Int16(events), revents: 0)
            }
            let waiting = clients.contains { $0.request != nil }
            let nearest = clients.map(\.deadline).min()
            let timeout = waiting ? 0 : nearest.map { Int32(max(0, min($0.timeIntervalSinceNow * 1_000 + 1, 60_000))) } ?? -1
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR { continue }
            var due = false
            while fds[0].revents != 0, let reason = mailbox.take() {
                switch reason {
                case .signal(let number) where number != SIGHUP:
                    _ = await pass()
                    for watcher in watchers.reversed() { await watcher.stop() }
                    return
                case .dataChanged: due = true
                default: break
                }
            }
            // A block's end comes before any request still waiting.
            if fds[1].revents != 0 {
                _ = timer.takeExpiry()
                timer.arm(await pass())
            }
            for (index, source) in sources.enumerated() where fds[sourcesFrom + index].revents != 0 { source.handle() }
            let now = Date()
            var index = clients.count - 1
            while index >= 0 {
                let events = fds.indices.contains(first + index) ? fds[first + index].revents : 0
                if !progress(at: index, events: events, now: now) { clients.remove(at: index) }
                index -= 1
            }
            if fds[2].revents != 0 { accept() }
            for index in turns() {
                // A block whose end came while the last request was answered
                // is lifted before the next.
                if timerFired() {
                    _ = timer.takeExpiry()
                    timer.arm(await pass())
                }
                let client = clients[index]
                let (answer, changed) = await handle(client.uid, client.request ?? [])
                clients[index].request = nil
                clients[index].answer = answer.count <= Self.maximumAnswer ? answer : Self.tooLong(answer.count)
                clients[index].answeredAt = Date()
                due = due || changed
            }
            // Most answers fit the socket's buffer: written, closed, gone.
            index = clients.count - 1
            while index >= 0 {
                if clients[index].answer != nil, !flush(at: index) { clients.remove(at: index) }
                index -= 1
            }
            shedUnread()
            if due { timer.arm(await pass()) }
        }
    }

    /// The refusal sent instead of an answer of `count` bytes, longer than
    /// a connection is given.
    private static func tooLong(_ count: Int) -> [UInt8] {
        let reason = "the answer would be \(count) bytes, more than the \(maximumAnswer / 1_048_576) MiB a connection is given; ask about fewer targets"
        return (try? ShieldProtocol.line(ShieldProtocol.Answer.failure(HeldBlockError.badRequest(reason)))) ?? []
    }

    /// Cuts, of each uid whose unsent answers pass `maximumUnsentPerUser`,
    /// the connections answered longest ago until they fit (its newest
    /// answer kept): a user that asks and never reads holds a bounded
    /// share of the service's memory, and only its own connections pay.
    private func shedUnread() {
        var unsent: [UInt32: Int] = [:]
        for client in clients { unsent[client.uid, default: 0] += client.unsent }
        for (uid, total) in unsent where total > Self.maximumUnsentPerUser {
            var over = total - Self.maximumUnsentPerUser
            let held = clients.indices.filter { clients[$0].uid == uid && clients[$0].unsent > 0 }
                .sorted { (clients[$0].answeredAt ?? .distantPast) < (clients[$1].answeredAt ?? .distantPast) }
            var cut = Set<Int>()
            for index in held.dropLast() where over > 0 {
                over -= clients[index].unsent
                close(clients[index].fd)
                cut.insert(index)
            }
            clients = clients.indices.filter { !cut.contains($0) }.map { clients[$0] }
        }
    }

    /// Whether the timer at the next block's end has fired.
    private func timerFired() -> Bool {
        var ready = pollfd(fd: timer.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) > 0 && ready.revents != 0
    }

    /// The clients whose request is answered this round: of each uid with a
    /// whole request, its oldest, the uid served longest ago first.
    private func turns() -> [Int] {
        var oldest: [UInt32: Int] = [:]
        for (index, client) in clients.enumerated() where client.request != nil {
            if let known = oldest[client.uid], clients[known].accepted <= client.accepted { continue }
            oldest[client.uid] = index
        }
        guard !oldest.isEmpty else { return [] }
        round += 1
        let order = oldest.sorted { (served[$0.key] ?? 0, $0.key) < (served[$1.key] ?? 0, $1.key) }
        for (uid, _) in order { served[uid] = round }
        // Forgotten once a uid has no connection left: bounded by the clients.
        if served.count > 2 * clients.count + 64 {
            let present = Set(clients.map(\.uid))
            served = served.filter { present.contains($0.key) }
        }
        return order.map(\.value)
    }

    /// Reads from or writes to the client as `events` allow; false when it
    /// is done with (answered, gone, or cut off, told why where it can be).
    private func progress(at index: Int, events: Int16, now: Date) -> Bool {
        if clients[index].answer != nil {
            if events != 0, !flush(at: index) { return false }
            guard clients[index].deadline > now else { close(clients[index].fd); return false }
            return true
        }
        guard clients[index].request == nil else { return true }
        switch readRequest(at: index, ready: events != 0, now: now) {
        case .pending: return true
        case .request(let line):
            clients[index].request = line
            return true
        case .refused(let reason):
            if let reason { refuse(clients[index].fd, reason) } else { close(clients[index].fd) }
            return false
        }
    }

    /// Sends what the client's socket takes of its answer; false (and the
    /// connection closed) once it is all sent or the client is gone.
    private func flush(at index: Int) -> Bool {
        guard let answer = clients[index].answer else { return true }
        let fd = clients[index].fd
        while clients[index].sent < answer.count {
            let count = answer.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + clients[index].sent, $0.count - clients[index].sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if count > 0 { clients[index].sent += count; continue }
            if count < 0, errno == EAGAIN || errno == EINTR { return true }
            break
        }
        close(fd)
        return false
    }

    /// Accepts the connections waiting, at most `acceptsPerRound`: a user
    /// reconnecting as fast as it is refused (past its limit) would else
    /// keep the loop here while others' requests wait; the rest wait for
    /// the next round, the listener still readable.
    private func accept() {
        for _ in 0..<Self.acceptsPerRound {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard let uid = UnixSocket.peerUID(fd) else { close(fd); continue }
            let held = clients.count { $0.uid == uid }
            guard held < Self.maximumClientsPerUser else {
                refuse(fd, "your user has \(Self.maximumClientsPerUser) connections to the service open already; close one and try again")
                continue
            }
            if clients.count >= capacity, !makeRoom(forHolderOf: held) {
                refuse(fd, "the service is busy; try again")
                continue
            }
            clients.append(Client(fd: fd, uid: uid, accepted: Date(), requestTimeout: requestTimeout))
        }
    }

    /// Cuts the oldest connection of the uid that holds most, if it holds
    /// more than a newcomer whose uid holds `held`: a full service is
    /// shared, never kept by the users who filled it.
    private func makeRoom(forHolderOf held: Int) -> Bool {
        let counts = Dictionary(clients.map { ($0.uid, 1) }, uniquingKeysWith: +)
        guard let (most, count) = counts.max(by: { $0.value < $1.value }), count > held + 1,
              let index = clients.firstIndex(where: { $0.uid == most && $0.request == nil && $0.answer == nil }) else { return false }
        refuse(clients.remove(at: index).fd, "the service is busy; try again")
        return true
    }

    private enum Reading {
        case pending
        case request([UInt8])
        /// Cut off, with what to tell it (nothing when it is gone).
        case refused(String?)
    }

    /// Reads what the client sent, if `ready`; whether its request is whole,
    /// may still come, or breaks the protocol's limits.
    private func readRequest(at index: Int, ready: Bool, now: Date) -> Reading {
        if ready {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(clients[index].fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { clients[index].buffer += chunk[..<count] }
            let buffer = clients[index].buffer
            if let end = buffer.firstIndex(of: 0x0A), end < ShieldProtocol.maximumRequest { return .request(Array(buffer[...end])) }
            if buffer.count >= ShieldProtocol.maximumRequest {
                return .refused("a request is at most \(ShieldProtocol.maximumRequest) bytes")
            }
            if count == 0 { return .refused(buffer.isEmpty ? nil : "the request ended before its line did") }
            if count < 0, errno != EAGAIN, errno != EINTR { return .refused(nil) }
        }
        if clients[index].deadline <= now {
            return .refused("a request must begin within \(Int(ShieldProtocol.idleTimeout)) s and arrive within \(Int(requestTimeout)) s")
        }
        return .pending
    }

    private func refuse(_ fd: Int32, _ reason: String) {
        if let answer = try? ShieldProtocol.line(ShieldProtocol.Answer.failure(HeldBlockError.badRequest(reason))) {
            // A refusal is a few hundred bytes into an empty socket buffer.
            UnixSocket.send(fd, answer, within: 0)
        }
        close(fd)
    }

    /// Raises this process's soft limit on open descriptors (to the hard
    /// limit, or as root beyond it) so that `clients` connections fit
    /// beside the service's own files; returns how many clients fit.
    static func raiseDescriptorLimit(toServe clients: Int) -> Int {
        let spare = 256
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        let wanted = rlim_t(clients + spare)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            raised.rlim_max = max(limit.rlim_max, wanted)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) != 0 {
                raised = limit
                raised.rlim_cur = min(limit.rlim_max, wanted)
                _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
            }
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return max(16, min(clients, Int(clamping: limit.rlim_cur) - spare))
    }
}
