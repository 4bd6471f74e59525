import Domain
import FoundationEssentials
import JSONDocument
import Synchronization

/// The last session the slot's JSON was decoded to (or encoded from), kept
/// by that JSON: a `stop` reads the slot in its reconcile, compares it in
/// its compare-and-swap, writes the ended session and compares that again
/// before it empties the slot, and each of those decoded the same value
/// through `Codable` again. Kept by the value itself, not by a file's
/// stamp, so it cannot be stale: a value another process or device wrote
/// is different JSON and is decoded. The store's coding is exactly
/// reversible (`JSONValueCoding`), so the session an encoding came from is
/// the one its decoding gives.
final class DecodedSessions: Sendable {
    private let last = Mutex<(raw: JSONValue, session: Session)?>(nil)

    /// `raw` decoded, or the session it was last decoded to or encoded from.
    func decode(_ raw: JSONValue, key: String) throws -> Session {
        if let kept = last.withLock({ $0 }), kept.raw == raw { return kept.session }
        let session = try Self.session(raw, key: key)
        last.withLock { $0 = (raw, session) }
        return session
    }

    /// `session` encoded, remembered as what that JSON decodes to.
    func encode(_ session: Session, key: String) throws -> JSONValue {
        let raw = try Self.json(session, key: key)
        last.withLock { $0 = (raw, session) }
        return raw
    }

    /// The session `raw` holds: by hand for the common shape
    /// (`SessionSlotJSON`), else through `Codable`.
    static func session(_ raw: JSONValue, key: String) throws -> Session {
        try SessionSlotJSON.decode(raw) ?? JSONValueCoding.decode(Session.self, from: raw, key: key)
    }

    /// `session` as the slot keeps it, the same JSON either way.
    static func json(_ session: Session, key: String) throws -> JSONValue {
        try SessionSlotJSON.encode(session) ?? JSONValueCoding.encode(session, key: key)
    }
}
