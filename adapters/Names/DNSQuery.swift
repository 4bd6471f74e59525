/// What the name layer's resolver reads of a query and writes back itself
/// (RFC 1035): the question's name, the query's id, and the refusal of a
/// blocked name. Everything else it relays as it came.
extension DNSMessage {
    /// "No such name": how a blocked name is answered.
    static let nameError: UInt8 = 3

    /// The labels of a query's question, and the offset just past it (its
    /// name, type and class); nil for bytes that are not a query with one
    /// question (an answer, a truncated message, two questions, a
    /// compressed question name, which no resolver sends): such bytes are
    /// never forwarded, so no name gets past unread.
    static func question(of bytes: [UInt8]) -> (labels: [String], end: Int)? {
        guard bytes.count >= 12, bytes[2] & 0x80 == 0, bytes[4] == 0, bytes[5] == 1 else { return nil }
        var labels: [String] = []
        var offset = 12
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 {
                guard offset + 5 <= bytes.count else { return nil }
                return (labels, offset + 5)
            }
            guard length <= 63, offset + 1 + length <= bytes.count else { return nil }
            labels.append(String(decoding: bytes[(offset + 1)..<(offset + 1 + length)], as: UTF8.self))
            offset += 1 + length
        }
        return nil
    }

    /// The answer "no such name" to `query`, whose question ends at
    /// `end`: its id, opcode and recursion flag kept, its question echoed,
    /// no records (nothing for a cache to keep beyond the asker's own
    /// negative-answer default).
    static func refusal(to query: [UInt8], questionEnd end: Int) -> [UInt8] {
        var answer = Array(query[0..<12])
        answer[2] = 0x80 | (query[2] & 0x79)          // a response; opcode and RD kept, AA and TC clear
        answer[3] = 0x80 | nameError                  // recursion available; NXDOMAIN
        answer[4] = 0; answer[5] = 1                  // one question
        for index in 6..<12 { answer[index] = 0 }     // no records
        answer += query[12..<end]
        return answer
    }

    /// The id of a message (its first two bytes).
    static func id(of bytes: [UInt8]) -> UInt16 {
        UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// `bytes` with its id replaced.
    static func with(id: UInt16, _ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        bytes[0] = UInt8(id >> 8)
        bytes[1] = UInt8(id & 0xFF)
        return bytes
    }
}
