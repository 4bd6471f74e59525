import FoundationEssentials
import RetimeShared

/// Strict time: where a moved clock cannot end a session (semantics.md,
/// "Strict sessions" and "The system service"). A strict session's time, and
/// the system service's block for it, is up only when the wall clock has
/// passed the planned end and the boot-time clock, which moving the wall
/// clock does not move, has run the length owed, within `tolerance`. The
/// session (`Session.strictTime`) and the service's held block
/// (`HeldBlock.strictTime`) both decide through this value; they differ only
/// in what a reboot does (`Reboot`) and how exactly the end is stated.
public struct StrictTime: Hashable, Sendable {
    /// What a reboot (another boot id, or no boot-time reading) does to the
    /// boot time still owed.
    public enum Reboot: Hashable, Sendable {
        /// The session's rule: its owed time is a deadline on one boot's
        /// clock; after a reboot the wall clock alone decides. Its end is
        /// the planned end unless the boot-time clock holds it at least
        /// `tolerance` longer.
        case wallClockDecides
        /// The held block's rule: the time served is counted boot by boot
        /// (`served(from:to:)`), the time the machine was off is not served,
        /// so the owed time carries over into the next boot. Its end is
        /// exact: the later of the planned end and now plus the time owed.
        case owedTimeCarriesOver
    }

    /// How far the two clocks may disagree before the boot-time clock is
    /// taken to hold a strict session: they are read a moment apart, so they
    /// never agree to the nanosecond, and moving the clock by less than this
    /// gains nothing worth refusing.
    public static let tolerance: TimeInterval = 1

    /// The planned end on the wall clock; nil when open-ended (never over).
    public let plannedEnd: Date?
    /// Boot time still owed as of `asOf`; nil when the wall clock alone
    /// decides (not strict). A session's is 0 as of its boot-time deadline.
    public let owed: TimeInterval?
    /// The boot-time reading `owed` is counted from.
    public let asOf: BootTimeReading?
    public let reboot: Reboot

    public init(plannedEnd: Date?, owed: TimeInterval?, asOf: BootTimeReading?, reboot: Reboot) {
        self.plannedEnd = plannedEnd
        self.owed = owed
        self.asOf = asOf
        self.reboot = reboot
    }

    /// Boot time still owed at `boot`; nil when the boot-time clock does
    /// not hold the time (not strict, or, under `wallClockDecides`, another
    /// boot or no reading). Under `owedTimeCarriesOver` a reading of another
    /// boot serves nothing until `served(from:to:)` counts it.
    public func owed(at boot: BootTimeReading?) -> TimeInterval? {
        guard let owed else { return nil }
        guard let asOf, let boot, asOf.bootID == boot.bootID else {
            return reboot == .wallClockDecides ? nil : max(0, owed)
        }
        return max(0, owed - (boot.seconds - asOf.seconds))
    }

    /// Whether the time is up at `now`: the planned end has passed and less
    /// than `tolerance` of boot time is owed.
    public func isOver(at now: Date, boot: BootTimeReading?) -> Bool {
        guard let plannedEnd, plannedEnd <= now else { return false }
        guard let left = owed(at: boot) else { return true }
        return left < Self.tolerance
    }

    /// The wall-clock instant the time really ends when the boot-time clock
    /// holds it beyond the planned end (the wall clock was moved forward);
    /// nil when the clocks agree. Under `owedTimeCarriesOver`, any time owed
    /// past the planned end counts, without the tolerance.
    public func heldEnd(at now: Date, boot: BootTimeReading?) -> Date? {
        guard let plannedEnd, let left = owed(at: boot) else { return nil }
        let end = now.addingTimeInterval(left)
        switch reboot {
        case .wallClockDecides: return left >= plannedEnd.timeIntervalSince(now) + Self.tolerance ? end : nil
        case .owedTimeCarriesOver: return end > plannedEnd ? end : nil
        }
    }

    /// When the time ends on the wall clock, as of `now`: the planned end,
    /// or later while the boot-time clock still holds it; nil when open-ended.
    public func end(at now: Date, boot: BootTimeReading?) -> Date? {
        guard let plannedEnd else { return nil }
        return heldEnd(at: now, boot: boot) ?? plannedEnd
    }

    /// The boot time served between two readings: all of it in the same
    /// boot, none across a reboot or without a reading (the time the
    /// machine was off is not served).
    public static func served(from last: BootTimeReading?, to boot: BootTimeReading?) -> TimeInterval {
        guard let last, let boot, last.bootID == boot.bootID else { return 0 }
        return max(0, boot.seconds - last.seconds)
    }
}
