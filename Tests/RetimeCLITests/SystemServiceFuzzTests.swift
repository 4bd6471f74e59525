#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The service treats every request as hostile: malformed, oversized,
/// truncated and slow requests are refused one by one, and the blocks hold.
@Suite("The system service under hostile requests", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceFuzzTests {
    /// A raw client: connects, sends `bytes` (then closes its side when
    /// `close`), and returns what came back within `seconds`.
    static func exchange(_ socket: String, _ bytes: [UInt8], closeAfter close: Bool = true, seconds: Double = 6) -> String? {
        guard let fd = connect(socket) else { return nil }
        defer { Glibc.close(fd) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        if close { shutdown(fd, Int32(SHUT_WR)) }
        return read(fd, seconds: seconds)
    }

    static func connect(_ socket: String) -> Int32? {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in socket.utf8.enumerated() { raw[index] = byte } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); return nil }
        return fd
    }

    static func read(_ fd: Int32, seconds: Double) -> String {
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4_096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) >= 0 else { break }
            guard ready.revents != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("2,000 malformed, oversized, truncated and slow requests: each refused, the service up, the strict block held")
    func hostileRequests() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)

        // The requests come from root (this process), which may release any
        // block: none of them is a well-formed release, so the block must hold.
        // Slow ones first: connected, silent, held open past the time limit.
        let slow = (0..<10).compactMap { _ in Self.connect(system.socket) }
        var generator = SystemRandomNumberGenerator()
        let shapes: [[UInt8]] = [
            "{}\n", "{\"version\":1}\n", "{\"version\":1,\"op\":\"raise\"}\n", "{\"version\":2,\"op\":\"status\"}\n",
            "{\"version\":1,\"op\":\"lower\",\"session\":\"not-a-uuid\"}\n", "{\"version\":1,\"op\":\"explode\"}\n",
            "{\"version\":1,\"op\":\"raise\",\"session\":\"3f2a0f2c-1b11-4c6e-9a39-1c7d8e5c2a10\",\"targets\":[1,2]}\n",
            "{\"version\":1,\"op\":\"raise\",\"session\":\"3f2a0f2c-1b11-4c6e-9a39-1c7d8e5c2a10\",\"targets\":[\"a b\"]}\n",
            "{\"version\":1,\"op\":\"raise\",\"session\":\"3f2a0f2c-1b11-4c6e-9a39-1c7d8e5c2a10\",\"length\":1e308}\n",
            "{\"version\":1,\"op\":\"release\"}\n", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "\u{0}\u{1}\n", "\n",
        ].map { Array($0.utf8) }
        var refused = 0, answered = 0
        for round in 0..<1_990 {
            let bytes: [UInt8]
            switch round % 4 {
            case 0: bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0x0A]
            case 1: bytes = shapes[round / 4 % shapes.count]
            case 2: bytes = Array("{\"version\":1,\"op\":\"low".utf8)                             // truncated
            default: bytes = round % 40 == 3 ? [UInt8](repeating: 0x61, count: 70_000) : shapes[(round / 4 + 3) % shapes.count]
            }
            let answer = Self.exchange(system.socket, bytes, seconds: 2) ?? ""
            if answer.contains("\"ok\":false") { refused += 1 } else if !answer.isEmpty { answered += 1 }
        }
        #expect(refused > 1_500, "\(refused) refused, \(answered) answered")
        let silent = slow.map { fd -> String in
            defer { close(fd) }
            return Self.read(fd, seconds: 7)
        }
        #expect(silent.allSatisfy { $0.contains("within 5 s") }, "slow clients are cut off: \(silent.prefix(2))")
        #expect(service.process.isRunning)
        #expect(system.blocked == ["example.com"], "the strict block held")
        let status = try user.run("system", "status", "--json")
        #expect((status.json["blocks"] as? [[String: Any]])?.count == 1)
    }
}
