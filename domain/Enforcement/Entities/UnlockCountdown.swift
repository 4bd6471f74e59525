import FoundationEssentials
import RetimeSession
import RetimeShared

/// The system service's own countdown to lower a strict block early
/// (`unlock delay:`): counted on the block's served boot time, so a moved
/// clock does not shorten it and the time the machine is off does not count.
public struct UnlockCountdown: Codable, Hashable, Sendable {
    public let startedAt: Date
    public let delay: TimeInterval
    /// The block's `served` when it started.
    public let servedAtStart: TimeInterval

    public init(startedAt: Date, delay: TimeInterval, servedAtStart: TimeInterval) {
        self.startedAt = startedAt
        self.delay = delay
        self.servedAtStart = servedAtStart
    }

    /// Boot time still owed by `block` (after `advance`).
    func owed(by block: HeldBlock) -> TimeInterval { max(0, delay - (block.served - servedAtStart)) }

    /// Whether it has run out by both clocks.
    public func isOver(for block: HeldBlock, at now: Date) -> Bool {
        now >= startedAt.addingTimeInterval(delay) && owed(by: block) < StrictTime.tolerance
    }

    /// When it runs out on the wall clock, as of `now`.
    public func end(for block: HeldBlock, at now: Date) -> Date {
        max(startedAt.addingTimeInterval(delay), now.addingTimeInterval(owed(by: block)))
    }
}
