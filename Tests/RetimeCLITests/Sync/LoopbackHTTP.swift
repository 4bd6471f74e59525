#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A minimal HTTP/1.0 client for a REST API on 127.0.0.1 (Syncthing's):
/// one request a connection, the body read to the server's close, so no
/// chunked encoding to undo. FoundationNetworking would bring libcurl in
/// for four endpoints.
struct LoopbackHTTP: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: UInt16
    /// Sent as `X-API-Key` with every request.
    let apiKey: String
    /// How long one request may take, connect to close. A long-poll
    /// (`/rest/events?timeout=N`) needs more than N.
    var timeout: TimeInterval = 10

    /// `GET path`: the status and the body.
    func get(_ path: String) throws -> (status: Int, body: Data) {
        try request("GET", path)
    }

    /// `POST path` with an empty body.
    func post(_ path: String) throws -> (status: Int, body: Data) {
        try request("POST", path)
    }

    /// The JSON document a `GET` answers with 200; anything else throws,
    /// naming the status and what the server said.
    func json(_ path: String) throws -> Any {
        let (status, body) = try get(path)
        guard status == 200 else {
            throw Failure(description: "GET \(path): HTTP \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        return try JSONSerialization.jsonObject(with: body)
    }

    func request(_ method: String, _ path: String) throws -> (status: Int, body: Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        let head = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nX-API-Key: \(apiKey)\r\nContent-Length: 0\r\n\r\n"
        let bytes = Array(head.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw Failure(description: "\(method) \(path): \(String(cString: strerror(errno)))")
            }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let end = response.range(of: Data("\r\n\r\n".utf8)),
              let statusLine = String(decoding: response[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").first,
              let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw Failure(description: "\(method) \(path): not an HTTP response (\(response.count) bytes)")
        }
        return (status, Data(response[end.upperBound...]))
    }

    /// A port on 127.0.0.1 that nothing listens on now (the kernel's pick;
    /// another process may take it before ours binds it, which a caller
    /// survives by trying again with another).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw Failure(description: "bind: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }
}
