import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// Suite files are read and written by retime's own JSON reader and writer.
/// They must write exactly what JSONEncoder wrote, read what it wrote, and
/// refuse anything that is not strictly JSON, keeping the file as it was.
@Suite("Suite files: the same bytes as JSONEncoder, strict JSON on reading")
struct SuiteFileFormatTests {
    let directory = TemporaryDirectory()
    var storeDirectory: String { directory.file("store") }
    var store: JSONFileStore { JSONFileStore(directory: storeDirectory, lockTimeout: 0.3) }

    /// The document as the previous writer produced it.
    struct Document: Encodable {
        var format = "retime.suite"
        var version = 1
        var values: [String: JSONValue]
    }

    static let values: [String: JSONValue] = [
        "text": .string("quote \" backslash \\ slash / tab\t line\n return\r \u{8}\u{c} ctrl \u{1}\u{1f} del \u{7f} ü 👩‍💻 \u{2028}"),
        "numbers": .array([.int(0), .int(-7), .int(Int64.max), .int(Int64.min), .double(0.1), .double(-2.5),
                           .double(1e21), .double(1.2345678901234568e17), .double(.leastNonzeroMagnitude)]),
        "empty array": .array([]), "empty object": .object([:]),
        "nested": .object(["b": .array([.object([:]), .array([]), .null, .bool(true), .bool(false)]), "A": .object(["z": .int(1), "a": .int(2)])]),
        "Zebra": .null, "a10": .int(10), "a9": .int(9), "é": .string(""),
    ]

    @Test("what the store writes is byte for byte what JSONEncoder wrote for the same values")
    func sameBytesAsJSONEncoder() throws {
        try store.update("config") { current in
            for (key, value) in Self.values { current[key] = value }
        }
        let written = try Data(contentsOf: URL(fileURLWithPath: storeDirectory + "/config.json"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        #expect(written == (try encoder.encode(Document(values: Self.values))) + Data("\n".utf8))
    }

    @Test("a file JSONEncoder wrote, compact or pretty, reads back as the same values")
    func readsEarlierFiles() throws {
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
        for formatting in [JSONEncoder.OutputFormatting(), [.prettyPrinted, .sortedKeys]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            #expect(FileManager.default.createFile(atPath: storeDirectory + "/config.json",
                                                   contents: try encoder.encode(Document(values: Self.values))))
            let read = try store.values(of: "config")
            #expect(read == (try JSONDecoder().decode(Document.Readback.self, from: encoder.encode(Document(values: Self.values))).values))
        }
    }

    static let malformed: [(String, String)] = [
        ("text after the document", #"{"format":"retime.suite","version":1,"values":{}} x"#),
        ("two documents", #"{"format":"retime.suite","version":1,"values":{}}{}"#),
        ("a leading zero", #"{"format":"retime.suite","version":1,"values":{"a":01}}"#),
        ("a bare decimal point", #"{"format":"retime.suite","version":1,"values":{"a":1.}}"#),
        ("a plus sign", #"{"format":"retime.suite","version":1,"values":{"a":+1}}"#),
        ("a trailing comma", #"{"format":"retime.suite","version":1,"values":{"a":[1,]}}"#),
        ("a single-quoted string", #"{"format":"retime.suite","version":1,"values":{"a":'x'}}"#),
        ("NaN", #"{"format":"retime.suite","version":1,"values":{"a":NaN}}"#),
        ("a number beyond a double", #"{"format":"retime.suite","version":1,"values":{"a":1e400}}"#),
        ("a lone surrogate", #"{"format":"retime.suite","version":1,"values":{"a":"\ud800"}}"#),
        ("a raw line break in a string", "{\"format\":\"retime.suite\",\"version\":1,\"values\":{\"a\":\"x\ny\"}}"),
        ("a version as text", #"{"format":"retime.suite","version":"1","values":{}}"#),
        ("nesting 100,000 deep", #"{"format":"retime.suite","version":1,"values":{"a":"# + String(repeating: "[", count: 100_000)),
    ]

    @Test("anything but strict JSON is a corrupted file, named, and left as it was", arguments: malformed.map(\.0))
    func refusesMalformed(kind: String) throws {
        let text = try #require(Self.malformed.first { $0.0 == kind }?.1)
        try checkRefused(Array(text.utf8))
    }

    @Test("invalid UTF-8 in a string is a corrupted file")
    func refusesInvalidUTF8() throws {
        try checkRefused(Array(#"{"format":"retime.suite","version":1,"values":{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8))
    }

    private func checkRefused(_ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
        let path = storeDirectory + "/config.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let error = try #require(throws: StoreError.self) { _ = try store.values(of: "config") }
        guard case .corrupted(let named, _) = error else { Issue.record("\(error)"); return }
        #expect(named == path)
        #expect(throws: StoreError.self) { try store.set(1, forKey: "k", in: "config") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}

extension SuiteFileFormatTests.Document {
    /// The previous reader: JSONDecoder into the same tree type.
    struct Readback: Decodable { var values: [String: JSONValue] }
}
