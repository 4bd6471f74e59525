import FoundationEssentials
import RetimeShared

/// A countdown to end or pause a strict session early (`unlock
/// delay:DURATION`): started by the first `stop` or `pause`, kept with the
/// session, carried out when it runs out unless `stop --withdraw` cancels
/// it. Its time is counted as a strict session's is (`StrictTime`): a clock
/// moved forward does not shorten it; after a reboot the wall clock decides.
public struct UnlockRequest: Hashable, Sendable, Codable {
    /// What happens when the countdown runs out.
    public enum Action: String, Hashable, Sendable, Codable {
        case stop, pause
    }

    public let action: Action
    public let requestedAt: Date
    /// The countdown's length, as `unlock` said when it was asked.
    public let delay: TimeInterval
    /// Its end on the boot-time clock; nil where there is no such clock.
    public let bootDeadline: BootTimeReading?

    /// A countdown of `delay` from `now` (and from `boot` on the boot-time clock).
    public init(action: Action, at now: Date, boot: BootTimeReading?, delay: TimeInterval) {
        self.action = action
        self.requestedAt = now
        self.delay = delay
        self.bootDeadline = boot.map { BootTimeReading(bootID: $0.bootID, seconds: $0.seconds + delay) }
    }

    /// When the countdown runs out if nobody moves the clock.
    public var plannedEnd: Date { requestedAt.addingTimeInterval(delay) }

    /// The strict-time rule for the countdown: the planned end on the wall
    /// clock and, held by the boot-time clock, its deadline there.
    public var strictTime: StrictTime {
        StrictTime(plannedEnd: plannedEnd, owed: bootDeadline == nil ? nil : 0, asOf: bootDeadline, reboot: .wallClockDecides)
    }

    /// Whether the countdown has run out at `now` by both clocks.
    public func isOver(at now: Date, boot: BootTimeReading?) -> Bool {
        strictTime.isOver(at: now, boot: boot)
    }

    /// When it runs out on the wall clock, as of `now`: later than
    /// `plannedEnd` while the boot-time clock still holds it.
    public func end(at now: Date, boot: BootTimeReading?) -> Date {
        strictTime.end(at: now, boot: boot) ?? plannedEnd
    }

    /// The instant the action is recorded at once it has run out: its
    /// planned end, or later when the boot-time clock held it longer (the
    /// wall clock was moved forward): when that clock reached its deadline.
    public func carriedOut(at now: Date, boot: BootTimeReading?) -> Date {
        guard let bootDeadline, let boot, boot.bootID == bootDeadline.bootID else { return min(plannedEnd, now) }
        let byBootClock = now.addingTimeInterval(-max(0, boot.seconds - bootDeadline.seconds))
        return min(max(plannedEnd, byBootClock), now)
    }
}
