@testable import Adapters
import Domain
import Foundation
import Testing

/// DNS's wire format as the resolver reads it: answers real servers send,
/// and bytes no server should send, which must never crash the service.
@Suite("DNS messages")
struct DNSMessageTests {
    /// An answer to question `id` for `a.test`: the records given as
    /// (type, ttl, data), after the header and the question.
    static func answer(id: UInt16 = 7, code: UInt8 = 0, records: [(UInt16, UInt32, [UInt8])], authority: [(UInt16, UInt32, [UInt8])] = [])
        -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x81, 0x80 | code, 0, 1, 0, UInt8(records.count), 0, UInt8(authority.count), 0, 0]
        bytes += [1, 0x61, 4] + Array("test".utf8) + [0, 0, 1, 0, 1]
        for (type, ttl, data) in records + authority {
            bytes += [0xC0, 0x0C, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
            bytes += [UInt8(ttl >> 24), UInt8((ttl >> 16) & 0xFF), UInt8((ttl >> 8) & 0xFF), UInt8(ttl & 0xFF)]
            bytes += [UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        return bytes
    }

    @Test("a query asks for one name's records, recursively; names no query can carry are refused")
    func query() throws {
        let bytes = try #require(DNSMessage.query(id: 0x1234, name: "www.example.com", type: DNSMessage.typeAAAA))
        #expect(Array(bytes[0..<4]) == [0x12, 0x34, 0x01, 0x00], "id, and recursion desired")
        #expect(Array(bytes[12...]) == [3] + Array("www".utf8) + [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0, 0, 28, 0, 1])
        #expect(DNSMessage.query(id: 1, name: String(repeating: "a", count: 64) + ".test", type: 1) == nil, "a label over 63 bytes")
        #expect(DNSMessage.query(id: 1, name: Array(repeating: "abcdefghi", count: 30).joined(separator: "."), type: 1) == nil, "over 255")
    }

    @Test("the addresses of an answer, CNAME chain included, with the smallest time-to-live")
    func addresses() throws {
        let bytes = Self.answer(records: [(5, 30, [3, 0x63, 0x64, 0x6E, 0]), (1, 300, [10, 0, 0, 2]), (1, 120, [10, 0, 0, 3])])
        let answer = try #require(DNSMessage.parse(bytes))
        #expect(answer.id == 7)
        #expect(answer.addresses?.map(\.description) == ["10.0.0.2", "10.0.0.3"])
        #expect(answer.timeToLive == 30, "the CNAME's time counts too")
        let v6 = try #require(DNSMessage.parse(Self.answer(records: [(28, 60, [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1])])))
        #expect(v6.addresses?.map(\.description) == ["2001:db8::1"])
    }

    @Test("no such name: no address, kept for its SOA's time; a server failure is no answer at all")
    func negative() throws {
        let missing = try #require(DNSMessage.parse(Self.answer(code: 3, records: [], authority: [(6, 900, [UInt8](repeating: 0, count: 22))])))
        #expect(missing.addresses == [] && missing.timeToLive == 900)
        let bare = try #require(DNSMessage.parse(Self.answer(code: 3, records: [])))
        #expect(bare.addresses == [] && bare.timeToLive == DNSMessage.negativeTimeToLive)
        let failed = try #require(DNSMessage.parse(Self.answer(code: 2, records: [])))
        #expect(failed.addresses == nil, "SERVFAIL")
    }

    @Test("truncated, lying or random bytes are no answer, and never a crash")
    func hostile() {
        let good = Self.answer(records: [(1, 300, [10, 0, 0, 2])])
        for cut in 0..<good.count { _ = DNSMessage.parse(Array(good.prefix(cut))) }
        #expect(DNSMessage.parse(Array(good.prefix(good.count - 2))) == nil, "a record running past the end")
        var lying = good
        lying[7] = 200   // 200 answers announced
        #expect(DNSMessage.parse(lying) == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0..<80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = DNSMessage.parse(bytes)
        }
    }
}

/// What the name layer's resolver reads of a query and answers itself.
@Suite("DNS queries as the name layer reads them")
struct DNSQueryTests {
    @Test("a query's question name is read label by label; answers, truncations and compressed names are not questions")
    func question() throws {
        let query = try #require(DNSMessage.query(id: 0x0102, name: "Sub.Blocked.TEST", type: DNSMessage.typeA))
        let (labels, end) = try #require(DNSMessage.question(of: query))
        #expect(labels == ["Sub", "Blocked", "TEST"] && end == query.count)
        #expect(DNSMessage.question(of: DNSMessageTests.answer(records: [])) == nil, "an answer")
        #expect(DNSMessage.question(of: Array(query.dropLast(3))) == nil, "cut short")
        #expect(DNSMessage.question(of: Array(query[0..<12]) + [0xC0, 0x0C, 0, 1, 0, 1]) == nil, "a compression pointer")
        var two = query
        two[5] = 2
        #expect(DNSMessage.question(of: two + Array(query[12...])) == nil, "two questions: the second would go unread")
        for length in 0..<query.count { _ = DNSMessage.question(of: Array(query[0..<length])) }
    }

    @Test("the refusal is 'no such name' to the same id and question, with no records")
    func refusal() throws {
        let query = try #require(DNSMessage.query(id: 0xBEEF, name: "blocked.test", type: DNSMessage.typeAAAA))
        let (_, end) = try #require(DNSMessage.question(of: query))
        let answer = DNSMessage.refusal(to: query, questionEnd: end)
        #expect(Array(answer[0..<2]) == [0xBE, 0xEF] && answer[2] & 0x80 != 0 && answer[2] & 0x01 != 0, "a response, recursion desired kept")
        #expect(answer[3] & 0x0F == 3 && Array(answer[4..<12]) == [0, 1, 0, 0, 0, 0, 0, 0])
        #expect(Array(answer[12...]) == Array(query[12...]))
        #expect(DNSMessage.parse(answer)?.addresses == [], "a resolver reads it as no such name")
    }
}
