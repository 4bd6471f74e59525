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

    public init(bootID: String, seconds: Double) {
        self.bootID = bootID
        self.seconds = seconds
    }
}
