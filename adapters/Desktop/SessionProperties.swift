#if os(Linux)
import FoundationEssentials

/// What a logind session's PropertiesChanged says of the properties the
/// presence follows (nil: not among the changed).
struct SessionProperties {
    var idle: Bool?
    var idleSince: UInt64?
    var locked: Bool?

    /// Reads the `a{sv}` after the interface's name; other entries are skipped.
    static func read(changed message: BusMessage) -> SessionProperties {
        var properties = SessionProperties()
        guard message.enter("a", "{sv}") else { return properties }
        while message.enter("e", "sv") {
            let name = message.readString() ?? ""
            if let (_, contents) = message.peek(), message.enter("v", contents) {
                switch (name, contents) {
                case ("IdleHint", "b"): properties.idle = message.readBool()
                case ("IdleSinceHint", "t"): properties.idleSince = message.readUInt64()
                case ("LockedHint", "b"): properties.locked = message.readBool()
                default: message.skip()
                }
                message.exit()
            }
            message.exit()
        }
        message.exit()
        return properties
    }
}
#endif
