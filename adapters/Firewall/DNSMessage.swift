import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// DNS's wire format (RFC 1035), as much as asking for A and AAAA records
/// takes: a query, and the addresses, time-to-live and outcome of an answer.
enum DNSMessage {
    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28

    /// A recursive query for `name`'s records of `type`; nil for a name no
    /// query can carry (a label over 63 bytes, over 255 in all).
    static func query(id: UInt16, name: String, type: UInt16) -> [UInt8]? {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            let utf8 = Array(label.utf8)
            guard !utf8.isEmpty, utf8.count <= 63 else { return nil }
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        bytes.append(0)
        guard bytes.count - 12 <= 255 else { return nil }
        bytes += [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        return bytes
    }

    /// What an answer says.
    struct Answer: Equatable {
        var id: UInt16
        /// Nil when the server failed (anything but "no error" and "no such name").
        var addresses: [IPAddress]?
        var timeToLive: TimeInterval
    }

    /// How long a "no such name" answer is kept when it names no time.
    static let negativeTimeToLive: TimeInterval = 300

    /// Reads an answer; nil for bytes that are not one (too short, not a
    /// response, a record running past the end).
    static func parse(_ bytes: [UInt8]) -> Answer? {
        guard bytes.count >= 12, bytes[2] & 0x80 != 0 else { return nil }
        let id = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let code = bytes[3] & 0x0F
        let questions = Int(word(bytes, 4)), answers = Int(word(bytes, 6)), authorities = Int(word(bytes, 8))
        var offset = 12
        for _ in 0..<questions {
            guard let end = skipName(bytes, offset), end + 4 <= bytes.count else { return nil }
            offset = end + 4
        }
        var addresses: [IPAddress] = []
        var timeToLive = TimeInterval.infinity
        for index in 0..<(answers + authorities) {
            guard let end = skipName(bytes, offset), end + 10 <= bytes.count else { return nil }
            let type = word(bytes, end), ttl = TimeInterval(UInt32(word(bytes, end + 4)) << 16 | UInt32(word(bytes, end + 6)))
            let length = Int(word(bytes, end + 8)), data = end + 10
            guard data + length <= bytes.count else { return nil }
            if index < answers {
                // Every address in the answer: a CNAME chain's records are
                // those of the name the chain ends at.
                if (type == typeA && length == 4) || (type == typeAAAA && length == 16),
                   let address = IPAddress(bytes: Array(bytes[data..<(data + length)])) {
                    addresses.append(address)
                    timeToLive = min(timeToLive, ttl)
                } else if type == 5 {
                    timeToLive = min(timeToLive, ttl)
                }
            } else if type == 6, addresses.isEmpty {
                // A negative answer is kept for its SOA's time.
                timeToLive = min(timeToLive, ttl)
            }
            offset = data + length
        }
        guard code == 0 || code == 3 else { return Answer(id: id, addresses: nil, timeToLive: 0) }
        return Answer(id: id, addresses: addresses, timeToLive: timeToLive.isFinite ? timeToLive : negativeTimeToLive)
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// The offset just past a name at `offset` (labels, ending in a zero
    /// byte or a compression pointer); nil when it runs off the end.
    private static func skipName(_ bytes: [UInt8], _ offset: Int) -> Int? {
        var offset = offset
        while offset < bytes.count {
            let length = bytes[offset]
            if length == 0 { return offset + 1 }
            if length & 0xC0 == 0xC0 { return offset + 2 <= bytes.count ? offset + 2 : nil }
            offset += 1 + Int(length)
        }
        return nil
    }
}
