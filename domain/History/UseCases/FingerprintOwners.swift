/// Which part of history holds each session id, by its 64-bit hash
/// (`MonthSummary.fingerprint(of:)`), to find the ids that two parts hold.
/// Open addressing over two flat arrays: a report over 100,000 sessions
/// puts them all in, and a `Dictionary` hashed each key again.
struct FingerprintOwners {
    private var keys: [UInt64]
    /// -1 where a slot is free.
    private var owners: [Int32]
    private let shift: UInt64

    /// Room for `count` fingerprints, at most half full.
    init(capacity count: Int) {
        var bits: UInt64 = 4
        while (1 << bits) < 2 * count { bits += 1 }
        keys = Array(repeating: 0, count: 1 << bits)
        owners = Array(repeating: -1, count: 1 << bits)
        shift = 64 - bits
    }

    /// Records that `owner` holds `fingerprint`; the owner that held it
    /// already, if another did.
    mutating func insert(_ fingerprint: UInt64, owner: Int32) -> Int32? {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while owners[slot] >= 0 {
            if keys[slot] == fingerprint { return owners[slot] == owner ? nil : owners[slot] }
            slot = (slot + 1) & mask
        }
        keys[slot] = fingerprint
        owners[slot] = owner
        return nil
    }

    /// The owner of `fingerprint`, if one holds it.
    func owner(of fingerprint: UInt64) -> Int32? {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while owners[slot] >= 0 {
            if keys[slot] == fingerprint { return owners[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
