import FoundationEssentials
import RetimeSession

/// The id of the session a schedule's interval starts: the same on every
/// device whose daemon starts it, so the devices' history lines hold one
/// session, merged as one, not one per device (docs/history.md, "Several
/// devices"). A name-based UUID (RFC 9562 version 5, SHA-1) of the
/// schedule's id and the interval's start instant, to the millisecond.
public enum ScheduledSessionID {
    /// The namespace of these names (a fixed, random UUID of our own).
    static let namespace: [UInt8] = [0x6f, 0x1c, 0x2a, 0x9e, 0x4b, 0x3d, 0x4e, 0x07, 0x9a, 0x51, 0x2c, 0x88, 0xd0, 0x13, 0x7e, 0x45]

    public static func of(schedule: ScheduleID, intervalStart: Date) -> SessionID {
        let milliseconds = (intervalStart.timeIntervalSince1970 * 1_000).rounded(.down)
        let name = "\(schedule.description.lowercased())@\(milliseconds.isFinite ? Int64(milliseconds) : 0)"
        return SessionID(nameBased(namespace: namespace, name: name))
    }

    /// The version 5 UUID of `name` in `namespace` (16 bytes).
    public static func nameBased(namespace: [UInt8], name: String) -> UUID {
        var digest = SHA1.hash(namespace + Array(name.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x50   // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80   // RFC 9562 variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
