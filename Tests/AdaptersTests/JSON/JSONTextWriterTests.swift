import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// The one JSON writer and its one escaper (issue 21): the store's policy is
/// held to Foundation's bytes, the terminal policy to round-tripping text
/// with nothing a terminal or a JavaScript parser acts on left raw.
@Suite("The JSON text writer and its escaper")
struct JSONTextWriterTests {
    static func randomText(_ generator: inout SystemRandomNumberGenerator) -> String {
        let pools: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x9F, 0xA0...0x2FF, 0x2028...0x2029, 0x1F600...0x1F64F]
        let scalars = (0..<Int.random(in: 0...12, using: &generator)).compactMap { _ in
            Unicode.Scalar(UInt32.random(in: pools.randomElement(using: &generator)!, using: &generator))
        }
        return String(String.UnicodeScalarView(scalars))
    }

    @Test("the store's policy writes what JSONEncoder writes, over 5,000 random strings")
    func storePolicy() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = StoreJSON.encoder()
        for _ in 0..<5_000 {
            let text = Self.randomText(&generator)
            #expect(try JSONTextWriter.write(.string(text), layout: .compact) == Array(try encoder.encode(text)), "\(text.debugDescription)")
        }
    }

    @Test("the terminal policy leaves no DEL, C1 control or line separator raw, and reads back to the same text")
    func terminalPolicy() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = Self.randomText(&generator)
            let bytes = try JSONTextWriter.write(.array([.string(text)]), layout: .compact, strings: .safeForTerminals)
            let written = String(decoding: bytes, as: UTF8.self)
            #expect(!written.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 })
            #expect(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String] == [text], "\(text.debugDescription)")
        }
    }

    @Test("numbers: exact for the store, to the millisecond (null when not finite) for people")
    func numbers() throws {
        let value = JSONValue.array([.double(1.23456), .double(3), .double(-0.0004), .int(7)])
        #expect(String(decoding: try JSONTextWriter.write(value, layout: .compact), as: UTF8.self) == "[1.23456,3,-0.0004,7]")
        #expect(String(decoding: try JSONTextWriter.write(value, layout: .compact, numbers: .milliseconds), as: UTF8.self) == "[1.235,3,0,7]")
        #expect(String(decoding: try JSONTextWriter.write(.double(.infinity), layout: .compact, numbers: .milliseconds), as: UTF8.self) == "null")
        #expect(throws: JSONTextWriter.Unwritable.self) { try JSONTextWriter.write(.double(.nan), layout: .compact) }
    }

    @Test("the pretty layout is JSONEncoder's, nested and empty containers included")
    func prettyLayout() throws {
        let value = JSONValue.object(["b": .array([]), "a": .object(["x": .int(1), "y": .array([.string("z"), .null])]), "c": .object([:])])
        let encoder = StoreJSON.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        #expect(try JSONTextWriter.write(value, layout: .pretty) == Array(try encoder.encode(value)))
    }
}
