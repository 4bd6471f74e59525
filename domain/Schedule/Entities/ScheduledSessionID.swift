import FoundationEssentials
import RetimeSession
import RetimeShared

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
        return SessionID(NameBasedUUID.make(namespace: namespace, name: name))
    }
}
