import FoundationEssentials

/// How long a long-running process waits before each new try at a source
/// it lost (a bus whose daemon went away): 1 s, then twice the last, at
/// most a minute. A source that stays away costs one try a minute, never a
/// busy loop; one that comes back soon is found again within seconds.
public struct ReconnectBackoff: Sendable, Hashable {
    public static let first: TimeInterval = 1
    public static let longest: TimeInterval = 60

    private var last: TimeInterval?

    public init() {}

    /// The wait before the next try (each call is one try).
    public mutating func next() -> TimeInterval {
        let delay = last.map { min($0 * 2, Self.longest) } ?? Self.first
        last = delay
        return delay
    }
}
