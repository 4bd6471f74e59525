import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Each user's share of the system service's slow work (hashing a
/// passcode takes tens of milliseconds of the one loop every user shares):
/// a token bucket per uid, `burst` deep, refilled by one every `interval`.
/// A user past its share is told when to ask again; no other user's share
/// is touched. Only users who spent some of theirs are remembered.
public final class PerUserBudget: Sendable {
    public let burst: Int
    public let interval: TimeInterval
    private let now: @Sendable () -> TimeInterval
    /// Tokens left by uid, as of when they were counted.
    private let buckets = Mutex([UInt32: (tokens: Double, at: TimeInterval)]())

    public init(burst: Int, every interval: TimeInterval,
                now: @escaping @Sendable () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }) {
        self.burst = burst
        self.interval = interval
        self.now = now
    }

    /// Takes one token of `uid`'s: nil when there was one, else how many
    /// seconds until there is.
    public func take(for uid: UInt32) -> TimeInterval? {
        let now = now()
        return buckets.withLock { buckets in
            let tokens = buckets[uid].map { min(Double(burst), $0.tokens + (now - $0.at) / interval) } ?? Double(burst)
            guard tokens >= 1 else {
                buckets[uid] = (tokens, now)
                return (1 - tokens) * interval
            }
            buckets[uid] = (tokens - 1, now)
            if buckets.count > 1_024 {
                // Full again means nothing to remember.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) / interval < Double(burst) }
            }
            return nil
        }
    }
}
