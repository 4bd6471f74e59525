import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The system service's one thread of work: a `poll` on the listening
/// socket, every client still sending its request, a timer at the next
/// block's end, a watch on the files its layers write, and TERM/INT. Slow or
/// hostile clients cost a descriptor each and are cut at the protocol's
/// limits (64 KiB, 5 s); nothing wakes the service while nothing is due.
public final class ShieldServiceLoop: @unchecked Sendable {
    /// The most clients served at once; the next is told the service is busy.
    public static let maximumClients = 256

    private let listener: Int32
    private let timer: DeadlineTimer
    /// Where TERM/INT/HUP and changes of the watched files are posted.
    private let mailbox: WakeMailbox
    private let watchers: [any WakeWatcher]
    private var clients: [Client] = []

    private struct Client {
        let fd: Int32
        let uid: UInt32
        var buffer: [UInt8] = []
        let deadline: Date
    }

    /// Listens at `socketPath`; wakes when any of `watchedFiles` is changed
    /// by someone else (a hosts file edited by hand).
    public init(socketPath: String, watchedFiles: [String]) throws {
        listener = try UnixSocket.listen(at: socketPath)
        timer = try DeadlineTimer()
        mailbox = try WakeMailbox()
        // Without inotify the layers are still rewritten at every pass; a
        // hand edit then waits for the next one.
        watchers = [SignalWatcher()] + [try? DirectoryWatcher.files(watchedFiles, name: "layers")].compactMap { $0 }
        for watcher in watchers { try watcher.start(posting: mailbox) }
    }

    deinit {
        clients.forEach { close($0.fd) }
        close(listener)
    }

    /// Serves until TERM or INT: `pass` at start (unless the caller made
    /// it and gives its deadline as `first`), at each deadline it
    /// returns, after each request that changed something and when a
    /// watched file changes; `handle` answers one request line from a caller
    /// the kernel names by uid, and says whether it changed the blocks.
    /// The last `pass` runs after the signal, so progress is written.
    /// `sources` are waited on too (the app layer's process events), each
    /// handled when its descriptor is readable.
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
            fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let nearest = clients.map(\.deadline).min()
            let timeout = nearest.map { Int32(max(0, min($0.timeIntervalSinceNow * 1_000 + 1, 60_000))) } ?? -1
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
            if fds[1].revents != 0 { _ = timer.takeExpiry(); due = true }
            if fds[2].revents != 0 { accept() }
            for (index, source) in sources.enumerated() where fds[sourcesFrom + index].revents != 0 { source.handle() }
            var index = clients.count - 1
            while index >= 0 {
                let ready = fds.indices.contains(first + index) && fds[first + index].revents != 0
                switch readRequest(at: index, ready: ready) {
                case .pending: break
                case .refused(let reason):
                    let client = clients.remove(at: index)
                    if let reason { refuse(client.fd, reason) } else { close(client.fd) }
                case .request(let line):
                    let client = clients.remove(at: index)
                    let (answer, changed) = await handle(client.uid, line)
                    UnixSocket.send(client.fd, answer)
                    close(client.fd)
                    due = due || changed
                }
                index -= 1
            }
            if due { timer.arm(await pass()) }
        }
    }

    private func accept() {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard let uid = UnixSocket.peerUID(fd) else { close(fd); continue }
            guard clients.count < Self.maximumClients else {
                refuse(fd, "the service is busy; try again")
                continue
            }
            clients.append(Client(fd: fd, uid: uid, deadline: Date().addingTimeInterval(ShieldProtocol.requestTimeout)))
        }
    }

    private enum Reading {
        case pending
        case request([UInt8])
        /// Cut off, with what to tell it (nothing when it is gone).
        case refused(String?)
    }

    /// Reads what the client sent, if `ready`; whether its request is whole,
    /// may still come, or breaks the protocol's limits.
    private func readRequest(at index: Int, ready: Bool) -> Reading {
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
        if clients[index].deadline <= Date() {
            return .refused("a request must arrive within \(Int(ShieldProtocol.requestTimeout)) s")
        }
        return .pending
    }

    private func refuse(_ fd: Int32, _ reason: String) {
        if let answer = try? ShieldProtocol.line(ShieldProtocol.Answer.failure(HeldBlockError.badRequest(reason))) {
            UnixSocket.send(fd, answer)
        }
        close(fd)
    }
}
