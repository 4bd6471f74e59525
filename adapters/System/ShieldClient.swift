import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Asks the system service: one connection, one request line, one answer
/// line, within `timeout`. Every failure is `HeldBlockError`: unreachable
/// (no service, a dead socket, no answer in time), or what it refused.
/// Where the service is installed, a connection refused or a socket not
/// there yet (the service restarting) is tried again until `timeout`.
public struct ShieldClient: Sendable {
    /// Where the service listens unless told otherwise.
    public static let defaultSocket = "/run/retime/shield.sock"
    public let socketPath: String
    public let timeout: Double

    public init(socketPath: String, timeout: Double = 5) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    /// The service's answer to `request`, which succeeded.
    public func send(_ request: ShieldProtocol.Request) throws(HeldBlockError) -> ShieldProtocol.Answer {
        // Past the user's share of the service's hashing (a few passcode
        // commands in one second), the service says when to ask again: a
        // wait of a moment is waited out here, a longer one is the answer.
        for _ in 0..<Self.slowDownRetries {
            do { return try sendOnce(request) } catch .slowDown(let wait) where wait <= Self.longestWait {
                usleep(useconds_t(max(0, wait) * 1_000_000) + 10_000)
            }
        }
        return try sendOnce(request)
    }

    /// How often a request told to slow down is sent again, and the
    /// longest wait it waits out.
    static let slowDownRetries = 3
    static let longestWait: TimeInterval = 2

    private func sendOnce(_ request: ShieldProtocol.Request) throws(HeldBlockError) -> ShieldProtocol.Answer {
        let fd = try connect()
        defer { close(fd) }
        guard let line = try? ShieldProtocol.line(request), UnixSocket.send(fd, line, within: timeout) else {
            throw .unreachable("\(socketPath): the request could not be sent")
        }
        let answer = try ShieldProtocol.decode(ShieldProtocol.Answer.self, from: try readLine(fd))
        guard answer.ok else {
            let failure = answer.error ?? .init(code: "system.badRequest", message: "refused without a reason", until: nil)
            throw Self.error(failure)
        }
        return answer
    }

    /// Whether a service answers at the socket.
    public func isReachable() -> Bool {
        (try? send(.init(op: .status))) != nil
    }

    /// A connection, waited for while the service is installed but not
    /// listening (systemd restarts it within a second): a user's `start`
    /// or `stop` during a restart is served, not refused.
    private func connect() throws(HeldBlockError) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch UnixSocket.connect(to: socketPath) {
            case .success(let fd): return fd
            case .failure(let failure):
                let passing = [ECONNREFUSED, ENOENT, EAGAIN].contains(failure.code)
                    && SystemServicePresence.isInstalled(socketPath: socketPath)
                guard passing, Date() < deadline else {
                    throw passing ? .unreachable("\(socketPath): the service is installed but did not listen within \(Int(timeout)) s")
                                  : failure.error
                }
                usleep(50_000)
            }
        }
    }

    private func readLine(_ fd: Int32) throws(HeldBlockError) -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !bytes.contains(0x0A) {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(0, deadline.timeIntervalSinceNow * 1_000))
            guard poll(&ready, 1, wait) > 0 else { throw .unreachable("\(socketPath): no answer within \(Int(timeout)) s") }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard count > 0 else { throw .unreachable("\(socketPath): the service closed the connection without an answer") }
            bytes += chunk[..<count]
            guard bytes.count <= 1 << 20 else { throw .unreachable("\(socketPath): the answer is too long") }
        }
        return bytes
    }

    /// The refusal as the domain names it, so the CLI reports its code.
    static func error(_ failure: ShieldProtocol.Failure) -> HeldBlockError {
        switch failure.code {
        case "system.strict": .strict(until: failure.until)
        case "system.strictBlockHeld": .anotherStrictBlock(until: failure.until)
        case "system.notRoot": .notRoot
        case "system.unlockCountdown": failure.until.map { .countdown(until: $0) } ?? .strict(until: nil)
        // A service from before it said when: a second, its refill.
        case "system.slowDown": .slowDown(retryAfter: max(0, failure.until?.timeIntervalSinceNow ?? 1))
        default: .refused(code: failure.code, message: failure.message)
        }
    }
}
