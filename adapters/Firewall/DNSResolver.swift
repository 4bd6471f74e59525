import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The resolver port over the system's DNS servers, asked directly over
/// UDP, so the hosts file (which the hosts layer has pointed at 0.0.0.0)
/// never answers. The servers are those of systemd-resolved's upstream list
/// when it runs (its stub at 127.0.0.53 answers from the hosts file too),
/// else `/etc/resolv.conf`'s. Every name is asked for A and AAAA at once,
/// up to `window` questions in flight, each server tried in turn, twice.
public struct DNSResolver: AddressResolver {
    public static let defaultConfigurations = ["/run/systemd/resolve/resolv.conf", "/etc/resolv.conf"]
    let configurations: [String]
    let timeout: TimeInterval
    /// The servers' port: 53, but for a test's own responder.
    let port: UInt16
    let window = 256
    /// The most one `resolve` takes, whatever the servers do.
    let budget: TimeInterval = 2.5

    public init(configurations: [String] = DNSResolver.defaultConfigurations, timeout: TimeInterval = 1.5, port: UInt16 = 53) {
        self.configurations = configurations
        self.timeout = timeout
        self.port = port
    }

    /// The servers to ask, in order: the first configuration file that
    /// names one other than the stub; the stub only if nothing else does.
    public func servers() -> [String] {
        var stubOnly: [String] = []
        for path in configurations {
            guard let servers = Self.nameservers(in: path) else { continue }
            let upstream = servers.filter { $0 != "127.0.0.53" && $0 != "127.0.0.54" }
            if !upstream.isEmpty { return upstream }
            if stubOnly.isEmpty { stubOnly = servers }
        }
        return stubOnly
    }

    /// The `nameserver` lines of a resolv.conf, in order; nil when it
    /// cannot be read.
    static func nameservers(in path: String) -> [String]? {
        guard let bytes = try? POSIXFiles.read(path, limit: 1 << 20) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver", !words[1].contains("%") else { return nil }
            return String(words[1])
        }
    }

    public func resolve(_ names: [String]) async -> [String: Resolution] {
        var pending = Set(names)
        var found: [String: Resolution] = [:]
        // Each server in turn, and the round again for what went
        // unanswered (a lost datagram, a server slow under the burst), all
        // within `budget`: the service answers a raise after its layers
        // enforce it, and a client waits 5 s at most.
        let servers = servers()
        let deadline = Date().addingTimeInterval(budget)
        for _ in 0..<2 {
            for server in servers where !pending.isEmpty {
                let left = deadline.timeIntervalSinceNow
                guard left > 0.05, let socket = UDPSocket(server: server, port: port) else { continue }
                let answers = socket.ask(Array(pending).sorted(), window: window, timeout: min(timeout, left))
                for (name, resolution) in answers {
                    found[name] = resolution
                    pending.remove(name)
                }
            }
        }
        return found
    }
}

/// One UDP socket connected to one DNS server: only that server's answers
/// reach it.
private final class UDPSocket {
    let fd: Int32

    init?(server: String, port: UInt16) {
        guard let address = IPText.parse(server) else { return nil }
        let (fd, result, _) = SocketAddress.connect(address, port: port, type: Int32(SOCK_DGRAM.rawValue))
        guard fd >= 0 else { return nil }
        guard result == 0 else { close(fd); return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Asks for every name's A and AAAA records, `window` questions at a
    /// time, each question once; a name is answered when both its answers
    /// came and neither was a failure.
    func ask(_ names: [String], window: Int, timeout: TimeInterval) -> [String: Resolution] {
        var questions: [(name: String, type: UInt16)] = names.flatMap { [($0, DNSMessage.typeA), ($0, DNSMessage.typeAAAA)] }
        questions.reverse()
        var inFlight: [UInt16: (name: String, type: UInt16, sent: Date)] = [:]
        var partial: [String: (answers: Int, resolution: Resolution)] = [:]
        var failed = Set<String>()
        var nextID = UInt16.random(in: 0...UInt16.max)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !questions.isEmpty || !inFlight.isEmpty {
            while inFlight.count < window, let question = questions.popLast() {
                nextID &+= 1
                guard inFlight[nextID] == nil else { questions.append(question); break }
                guard let query = DNSMessage.query(id: nextID, name: question.name, type: question.type) else {
                    failed.insert(question.name)
                    continue
                }
                let sent = query.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                if sent < 0 { failed.insert(question.name); continue }
                inFlight[nextID] = (question.name, question.type, Date())
            }
            let oldest = inFlight.values.map(\.sent).min() ?? Date()
            let wait = Int32(max(0, (oldest.addingTimeInterval(timeout).timeIntervalSinceNow) * 1_000))
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, wait) <= 0 {
                // The oldest questions had their time: those names failed here.
                let late = inFlight.filter { $0.value.sent.addingTimeInterval(timeout) <= Date() }
                for (id, question) in late { inFlight[id] = nil; failed.insert(question.name) }
                continue
            }
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count < 0 && errno == ECONNREFUSED {
                    // Nothing listens there: every question fails at once.
                    for question in inFlight.values { failed.insert(question.name) }
                    for question in questions { failed.insert(question.name) }
                    inFlight.removeAll()
                    questions.removeAll()
                    break
                }
                guard count > 0 else { break }
                guard let answer = DNSMessage.parse(Array(buffer[..<count])), let question = inFlight.removeValue(forKey: answer.id) else {
                    continue
                }
                guard let addresses = answer.addresses else { failed.insert(question.name); continue }
                var entry = partial[question.name] ?? (0, Resolution(addresses: [], timeToLive: .infinity))
                entry.answers += 1
                entry.resolution.addresses.formUnion(addresses)
                entry.resolution.timeToLive = min(entry.resolution.timeToLive, answer.timeToLive)
                partial[question.name] = entry
            }
        }
        var resolved: [String: Resolution] = [:]
        for (name, entry) in partial where entry.answers == 2 && !failed.contains(name) { resolved[name] = entry.resolution }
        return resolved
    }
}
