import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Session ids for imported data that carries none (Timewarrior), derived
/// from the data itself: the same interval always gets the same id, which
/// is what makes a second import of the same files add nothing.
enum ImportIdentity {
    /// A UUID (version 8, "custom") from two FNV-1a 64-bit hashes of `text`.
    static func sessionID(for text: String) -> SessionID {
        let first = fnv1a(text, seed: 0xcbf2_9ce4_8422_2325), second = fnv1a(text, seed: 0x8422_2325_cbf2_9ce4)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: first >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: second >> (8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80   // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // RFC 4122 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return SessionID(uuid)
    }

    /// A session id from 32 hex digits (Watson's `uuid4().hex`), if it is one.
    static func sessionID(hex: String) -> SessionID? {
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        var text = hex.lowercased()
        for position in [8, 13, 18, 23] { text.insert("-", at: text.index(text.startIndex, offsetBy: position)) }
        return UUID(uuidString: text).map(SessionID.init)
    }

    private static func fnv1a(_ text: String, seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The group id of a session until the import files it under the group
    /// its name resolves to: fixed, so two reads of the same data are equal.
    static let unfiled = GroupID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

    /// An imported stretch of time as a session: it ran as planned, so it
    /// is `completed` with its end as planned end.
    static func session(id: SessionID, start: Date, end: Date, tags: [String], note: String?, tool: String) -> Session {
        Session(id: id, groupId: unfiled, startedAt: start, plannedEnd: end, endedAt: end, outcome: .completed, strict: false,
                breaks: [], tags: tags, note: note, origin: .imported(tool))
    }
}
