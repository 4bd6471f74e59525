import FoundationEssentials

/// The one source of time for the domain: what time it is, and a way to wait
/// for an instant. Use cases never read the system clock themselves, so tests
/// drive time by hand and the daemon can sleep until a wall-clock deadline.
public protocol Clock: Sendable {
    /// The current wall-clock instant.
    func now() -> Date

    /// Suspends until the wall clock reaches `deadline`; returns at once if it
    /// already has. Throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws

    /// A reading of a clock that changes to the wall clock do not move
    /// (Linux `CLOCK_BOOTTIME`), or nil where the platform has none. Strict
    /// sessions use it to resist a user moving the wall clock forward.
    func bootTime() -> BootTimeReading?
}

extension Clock {
    public func bootTime() -> BootTimeReading? { nil }
}

/// An instant on the boot-time clock, meaningful only within one boot.
public struct BootTimeReading: Sendable, Hashable, Codable {
    /// Identifies the boot the reading belongs to (Linux `boot_id`).
    public var bootID: String
    /// Seconds since that boot, suspend included.
    public var seconds: Double
    /// Seconds the machine was awake since that boot (Linux
    /// `CLOCK_MONOTONIC`, which stops while suspended); nil where the
    /// platform has no such clock, and in readings recorded before retime
    /// kept it.
    public var awakeSeconds: Double?

    public init(bootID: String, seconds: Double, awakeSeconds: Double? = nil) {
        self.bootID = bootID
        self.seconds = seconds
        self.awakeSeconds = awakeSeconds
    }

    /// How long the machine was suspended between `earlier` and this
    /// reading: the boot-time clock's advance less the awake clock's
    /// (Δboot − Δawake). Nil across a reboot or when either lacks the awake
    /// clock, so no command ever guesses.
    public func suspended(since earlier: BootTimeReading) -> TimeInterval? {
        guard earlier.bootID == bootID, let awake = awakeSeconds, let before = earlier.awakeSeconds else { return nil }
        return max(0, (seconds - earlier.seconds) - (awake - before))
    }
}
