import Domain
import JSONDocument
import Testing

/// The tree encoder the store writes through, with large collections (a
/// block of 10,000 targets) and containers asked for more than once.
@Suite("The JSON value encoder")
struct JSONValueEncoderTests {
    struct Big: Codable, Equatable {
        var targets: [String]
        var byName: [String: Int]
    }

    /// Asks for the same nested container twice: both writes must land.
    struct Twice: Encodable {
        enum Keys: String, CodingKey { case inner }
        enum Inner: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: Keys.self)
            var first = outer.nestedContainer(keyedBy: Inner.self, forKey: .inner)
            try first.encode(1, forKey: .a)
            var second = outer.nestedContainer(keyedBy: Inner.self, forKey: .inner)
            try second.encode(2, forKey: .b)
        }
    }

    @Test("10,000 array items and 1,000 members encode whole and in order, and read back")
    func large() throws {
        let big = Big(targets: (0..<10_000).map { "s\($0).example" }, byName: Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("k\($0)", $0) }))
        let value = try JSONValueEncoder().encode(big)
        guard case .object(let members) = value, case .array(let items)? = members["targets"] else {
            Issue.record("not an object with an array: \(value)")
            return
        }
        #expect(items.count == 10_000 && items.first == .string("s0.example") && items.last == .string("s9999.example"))
        #expect(try JSONValueDecoder().decode(Big.self, from: value) == big)
    }

    @Test("a nested container asked for twice keeps both writes")
    func twice() throws {
        #expect(try JSONValueEncoder().encode(Twice()) == .object(["inner": .object(["a": .int(1), "b": .int(2)])]))
    }
}
