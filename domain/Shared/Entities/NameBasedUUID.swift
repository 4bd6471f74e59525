import FoundationEssentials

/// Name-based UUIDs (RFC 9562 version 5, SHA-1): the same name in the same
/// namespace gives the same id on every device, with no device asking
/// another. What lets two devices that did one thing before they saw each
/// other (started one schedule's interval: `ScheduledSessionID`) write one
/// record, not two.
public enum NameBasedUUID {
    /// The version 5 UUID of `name` in `namespace` (16 bytes).
    public static func make(namespace: [UInt8], name: String) -> UUID {
        var digest = SHA1.hash(namespace + Array(name.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x50   // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80   // RFC 9562 variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
