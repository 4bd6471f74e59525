import Domain
import Foundation

/// The on-disk form of one suite: `{"format":"retime.suite","version":1,"values":{...}}`,
/// and the checks that tell a good file from a damaged one.
struct SuiteFile: Codable, Equatable {
    static let format = "retime.suite"
    static let currentVersion = 1

    var format: String
    var version: Int
    var values: [String: JSONValue]

    init(values: [String: JSONValue]) {
        format = Self.format
        version = Self.currentVersion
        self.values = values
    }

    /// Decodes a suite file, or says exactly why it cannot.
    static func decode(_ bytes: [UInt8], path: String) throws -> SuiteFile {
        if bytes.isEmpty { throw StoreError.corrupted(path: path, reason: "the file is empty") }
        if bytes.allSatisfy({ $0 == 0 }) { throw StoreError.corrupted(path: path, reason: "the file holds only NUL bytes") }
        let file: SuiteFile
        do {
            file = try JSONDecoder().decode(SuiteFile.self, from: Data(bytes))
        } catch DecodingError.keyNotFound(let key, _) {
            throw StoreError.corrupted(path: path, reason: "'\(key.stringValue)' is missing")
        } catch {
            throw StoreError.corrupted(path: path, reason: "not valid JSON (truncated or edited?)")
        }
        guard file.format == format else {
            throw StoreError.corrupted(path: path, reason: "not a retime suite file")
        }
        guard file.version <= currentVersion else {
            throw StoreError.unsupportedVersion(path: path, version: file.version)
        }
        return file
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }
}
