import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Each user's share of the system service's slow work (hashing a
/// passcode takes tens of milliseconds of the one loop every user shares;
/// so do thousands of new names to block): a token bucket per uid, `burst`
/// deep, refilled by one every `interval`.
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

    /// How long until `uid` has a token, without taking it: nil when it
    /// has one now (a request can be refused before any work on it).
    public func shortfall(for uid: UInt32) -> TimeInterval? {
        let now = now()
        return buckets.withLock { buckets in
            guard let bucket = buckets[uid] else { return nil }
            let tokens = min(Double(burst), bucket.tokens + (now - bucket.at) / interval)
            return tokens >= 1 ? nil : (1 - tokens) * interval
        }
    }

    /// Takes `count` tokens of `uid`'s (at most `burst`): nil when there
    /// were as many, else how many seconds until there are.
    public func take(_ count: Int = 1, for uid: UInt32) -> TimeInterval? {
        let now = now(), wanted = Double(min(max(1, count), burst))
        return buckets.withLock { buckets in
            let tokens = buckets[uid].map { min(Double(burst), $0.tokens + (now - $0.at) / interval) } ?? Double(burst)
            guard tokens >= wanted else {
                buckets[uid] = (tokens, now)
                return (wanted - tokens) * interval
            }
            buckets[uid] = (tokens - wanted, now)
            if buckets.count > 1_024 {
                // Full again means nothing to remember.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) / interval < Double(burst) }
            }
            return nil
        }
    }
}
