#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// The on-disk form of one suite: `{"format":"retime.suite","version":1,"values":{...}}`,
/// and the checks that tell a good file from a damaged one.
struct SuiteFile: Equatable {
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
        guard case .object(let members)? = try? JSONText.parse(bytes) else {
            throw StoreError.corrupted(path: path, reason: "not valid JSON (truncated or edited?)")
        }
        for key in ["format", "version", "values"] where members[key] == nil {
            throw StoreError.corrupted(path: path, reason: "'\(key)' is missing")
        }
        guard case .string(let format)? = members["format"], format == Self.format else {
            throw StoreError.corrupted(path: path, reason: "not a retime suite file")
        }
        guard case .int(let version)? = members["version"], case .object(let values)? = members["values"] else {
            throw StoreError.corrupted(path: path, reason: "not a retime suite file")
        }
        guard version <= currentVersion else {
            throw StoreError.unsupportedVersion(path: path, version: Int(clamping: version))
        }
        var file = SuiteFile(values: values)
        file.version = Int(version)
        return file
    }

    /// The file's bytes: pretty-printed with sorted keys, ending in a newline.
    func encoded() throws -> [UInt8] {
        let document = JSONValue.object(["format": .string(format), "version": .int(Int64(version)), "values": .object(values)])
        return try JSONText.pretty(document) + [UInt8(ascii: "\n")]
    }
}
