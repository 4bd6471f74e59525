@testable import Adapters
import Foundation
import JSONDocument
import Testing

/// The store's JSON reader builds each object's table at once, from the
/// members it read: what it answers is the value that was written.
@Suite("The JSON text reader")
struct JSONTextReaderTests {
    /// A random value up to `depth` levels deep: objects of 0 to 24
    /// members (past the sizes at which a table grows), arrays, strings,
    /// whole numbers, booleans and null.
    static func random(_ depth: Int, _ generator: inout SystemRandomNumberGenerator) -> JSONValue {
        switch depth == 0 ? Int.random(in: 2...5, using: &generator) : Int.random(in: 0...5, using: &generator) {
        case 0:
            let count = Int.random(in: 0...24, using: &generator)
            return .object(Dictionary(uniqueKeysWithValues: (0..<count).map { ("k\($0)-\(Int.random(in: 0...9, using: &generator))", random(depth - 1, &generator)) }))
        case 1: return .array((0..<Int.random(in: 0...5, using: &generator)).map { _ in random(depth - 1, &generator) })
        case 2: return .string(String(repeating: "é", count: Int.random(in: 0...3, using: &generator)) + "x")
        case 3: return .int(Int64.random(in: -1_000_000...1_000_000, using: &generator))
        case 4: return .bool(Bool.random(using: &generator))
        default: return .null
        }
    }

    @Test("a value written and read back is the same value, over 500 random documents of objects up to 24 members")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let value = Self.random(3, &generator)
            let text = try JSONTextWriter.write(value, layout: .compact)
            #expect(try JSONText.parse(text) == value, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test("a repeated member keeps its last value, at any depth; an empty object is empty")
    func repeatedMembers() throws {
        let text = #"{"a":1,"b":{"c":[{"d":null,"d":true}],"c":"x","e":{}},"a":2}"#
        #expect(try JSONText.parse(Array(text.utf8)) == .object(["a": .int(2), "b": .object(["c": .string("x"), "e": .object([:])])]))
        let inner = #"{"b":{"c":[{"d":null,"d":true}]}}"#
        #expect(try JSONText.parse(Array(inner.utf8)) == .object(["b": .object(["c": .array([.object(["d": .bool(true)])])])]))
        for bad in [#"{"a":1,}"#, #"{"a" 1}"#, #"{"a":1"#, #"{,}"#] {
            #expect(throws: JSONText.Malformed.self) { try JSONText.parse(Array(bad.utf8)) }
        }
    }

    @Test("whole numbers read from their digits, to the edges of 64 bits; past them, and written otherwise, as before")
    func numbers() throws {
        let cases: [(String, JSONValue)] = [
            ("0", .int(0)), ("-0", .int(0)), ("7", .int(7)), ("-42", .int(-42)), ("1795848677788000000", .int(1_795_848_677_788_000_000)),
            ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("-9223372036854775809", .double(-9_223_372_036_854_775_809)),
            ("1.5e3", .int(1_500)), ("2.5", .double(2.5)), ("100000000000000000000", .double(1e20)),
        ]
        for (text, value) in cases {
            #expect(try JSONText.parse(Array(text.utf8)) == value, "\(text)")
        }
        for bad in ["01", "-", "1.", "+1", "1e"] {
            #expect(throws: JSONText.Malformed.self) { try JSONText.parse(Array(bad.utf8)) }
        }
    }
}
