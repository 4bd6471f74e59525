import FoundationEssentials

/// How wrong passcodes are slowed down (semantics.md): five in a row are
/// free, the fifth locks out for 60 s, and each further failure doubles the
/// lock. The exponent stops at 30 only so the arithmetic cannot overflow
/// (2^30 minutes is two thousand years).
public enum Lockout {
    public static let freeAttempts = 5
    public static let firstLock: TimeInterval = 60

    /// How long the `failures`-th wrong passcode in a row locks out; nil
    /// while the failures are still free.
    public static func duration(afterFailures failures: Int) -> TimeInterval? {
        guard failures >= freeAttempts else { return nil }
        return firstLock * Double(1 << min(failures - freeAttempts, 30))
    }
}
