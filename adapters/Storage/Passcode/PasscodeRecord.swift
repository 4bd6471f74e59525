import Domain
import FoundationEssentials
import JSONDocument

/// One device's latest change of the shared passcode
/// (`devices/<id>/passcode.json`): the hash it set, or its removal, stamped
/// by the hybrid clock. `{"format":"retime.passcode","version":1,
/// "at":"MILLIS-COUNTER-DEVICE","hash":"$y$…"}`, `"hash":null` for a
/// removal. A hash and its salt are one crypt(3) text, so a record is never
/// merged with another: the newest record of any device is the passcode.
struct PasscodeRecord: Equatable, Sendable {
    static let format = "retime.passcode"
    static let version = 1
    /// A record is a few hundred bytes; anything far larger is not one.
    static let readLimit = 64 << 10

    /// The crypt(3) hash; nil for a removal.
    var hash: String?
    var at: HybridTimestamp

    /// The record in `bytes`, or a `StoreError` saying why they are not one
    /// (a sync tool's half-copied file, a hand edit, a newer retime's).
    static func decode(_ bytes: [UInt8], path: String) throws -> PasscodeRecord {
        guard case .object(let members)? = try? JSONText.parse(bytes), members["format"] == .string(format) else {
            throw StoreError.corrupted(path: path, reason: "not a retime passcode file (damaged, or still being copied)")
        }
        guard case .int(let version)? = members["version"] else { throw StoreError.corrupted(path: path, reason: "'version' is missing") }
        guard version <= Int64(Self.version) else { throw StoreError.unsupportedVersion(path: path, version: Int(clamping: version)) }
        guard case .string(let text)? = members["at"], let at = HybridTimestamp(text: text) else {
            throw StoreError.corrupted(path: path, reason: "'at' is not a hybrid clock reading")
        }
        switch members["hash"] {
        case .string(let hash)? where !hash.isEmpty && hash.utf8.count <= 1_024: return PasscodeRecord(hash: hash, at: at)
        case .null?: return PasscodeRecord(hash: nil, at: at)
        default: throw StoreError.corrupted(path: path, reason: "'hash' is neither a passcode hash nor null")
        }
    }

    /// The file's bytes: pretty-printed, keys sorted, ending in a newline.
    func encoded() throws -> [UInt8] {
        let document = JSONValue.object(["format": .string(Self.format), "version": .int(Int64(Self.version)),
                                         "at": .string(at.description), "hash": hash.map(JSONValue.string) ?? .null])
        return try JSONText.pretty(document) + [0x0A]
    }
}
