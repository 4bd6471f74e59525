import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One TCP client of the name layer's resolver: what it sent and is still
/// to be answered, what is to be written back, and the stream to the
/// upstream server while a query of its waits there (RFC 1035 4.2.2: each
/// message after its two-byte length). Its queries are answered in turn.
struct NameConnection {
    let uid: UInt32
    var deadline: Date
    var input: [UInt8] = []
    var output: [UInt8] = []
    /// The stream to the upstream server, or -1.
    var upstream: Int32 = -1
    var upstreamOutput: [UInt8] = []
    var upstreamInput: [UInt8] = []

    init(uid: UInt32, deadline: Date) {
        self.uid = uid
        self.deadline = deadline
    }

    /// The next whole query the client sent, without its length.
    mutating func takeQuery() -> [UInt8]? {
        guard let message = Self.message(in: input) else { return nil }
        input.removeFirst(2 + message.count)
        return message
    }

    /// The upstream's whole answer, with its length (relayed as it came).
    mutating func takeAnswer() -> [UInt8]? {
        guard let message = Self.message(in: upstreamInput) else { return nil }
        defer { upstreamInput.removeAll() }
        return Self.framed(message)
    }

    static func message(in bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length else { return nil }
        return Array(bytes[2..<(2 + length)])
    }

    static func framed(_ message: [UInt8]) -> [UInt8] {
        [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }
}
