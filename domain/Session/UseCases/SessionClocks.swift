import FoundationEssentials
import RetimeShared
import RetimeSync

/// Which clock judges a session on this machine (semantics.md, "Devices
/// you can trust", "Clocks"). A session started here, or on a device whose
/// clock agrees with this one's within `agreement`, is judged by this
/// machine's clock. One started on a device whose clock is further behind
/// this one's is judged by that device's clock as estimated here
/// (`StarterClock`): a machine whose clock runs fast never ends, stops or
/// completes it on its own clock's word. The estimate is never above the
/// other clock (delays only lower it), so such a session ends no earlier
/// than its device says, and late at most by the time a change takes to
/// arrive. A device whose clock runs ahead of this one's has its sessions
/// judged by this machine's own clock, which reaches their ends no
/// earlier than theirs does: an estimate is only ever used to wait
/// longer, so one this machine's own clock made stale (set right since
/// it was made) never ends a session early. The one exception is a
/// session of such a device that another session's end hangs on
/// (`hasPassedItsEnd`): the estimate, never above that device's clock,
/// says it has passed its end no earlier than that device does.
public struct SessionClocks: Sendable {
    /// This machine's clock.
    public let clock: any Clock
    let devices: any DeviceDirectory

    /// Two clocks this close agree: each judges the other's sessions.
    public static let agreement: TimeInterval = 60

    public init(clock: any Clock, devices: any DeviceDirectory) {
        self.clock = clock
        self.devices = devices
    }

    /// How far the clock of the device that started `session` is behind
    /// this one's (a negative number of seconds), when it is by more than
    /// `agreement`; nil when they agree, when that clock is ahead, when it
    /// was started here or names no device, or when nothing tells.
    public func offset(of session: Session) -> TimeInterval? {
        guard let device = session.device, device != (try? devices.thisDevice()),
              let offset = devices.clockOffset(of: device), offset < -Self.agreement else { return nil }
        return offset
    }

    /// Whether `session` has passed its end on the clock of the device that
    /// started it, when that clock is ahead of this one's by more than
    /// `agreement`: the estimate of a clock is never above it, so the
    /// session has ended there too. Not how a session is judged here
    /// (`clock(for:)` waits for this machine's own clock), but what keeps
    /// this machine's slower clock from running on a session its device
    /// has ended, when that decides another session's end (a strict
    /// session started at once with another takes the slot from it while
    /// it runs: `ConcurrentStarts`).
    public func hasPassedItsEnd(_ session: Session) -> Bool {
        guard let device = session.device, device != (try? devices.thisDevice()),
              let offset = devices.clockOffset(of: device), offset > Self.agreement else { return false }
        let starter = StarterClock(base: clock, offset: offset)
        return session.isExpired(at: starter.now(), boot: starter.bootTime())
    }

    /// The clock that judges `session` here.
    public func clock(for session: Session?) -> any Clock {
        guard let session, let offset = offset(of: session) else { return clock }
        return StarterClock(base: clock, offset: offset)
    }

    /// `instant` of `session`'s clock on this machine's clock.
    public func local(_ instant: Date, of session: Session) -> Date {
        offset(of: session).map { instant.addingTimeInterval(-$0) } ?? instant
    }

    /// `instant` of this machine's clock on `session`'s clock.
    public func onClock(of session: Session, _ instant: Date) -> Date {
        offset(of: session).map { instant.addingTimeInterval($0) } ?? instant
    }

    /// `instant` of one session's clock on another's.
    public func convert(_ instant: Date, from source: Session, to target: Session) -> Date {
        onClock(of: target, local(instant, of: source))
    }
}
