import FoundationEssentials
import RetimeGroup
import RetimeSession
import RetimeShared

/// A block the system service holds for one local user (semantics.md, "The
/// system service"): what it blocks, for which session, until when, and how
/// much of its length it has been in force on the boot-time clock, so a
/// strict block ends by both clocks, across reboots too.
public struct HeldBlock: Codable, Hashable, Sendable {
    /// The user it blocks, as the kernel named the caller that raised it.
    public let uid: UInt32
    public let session: SessionID
    public var targets: [Target]
    /// Set by a strict raise, never cleared (`tighten(by:now:boot:)`).
    public internal(set) var strict: Bool
    /// Nil for an open-ended block, which only its user (or root) lowers.
    /// A raise only moves it later.
    public internal(set) var plannedEnd: Date?
    /// The planned length: a strict block stays until it has been in force
    /// this long of boot time, however the wall clock is moved. A raise
    /// only makes it longer.
    public internal(set) var length: TimeInterval?
    /// Boot time in force, as of `checkpoint`.
    public private(set) var served: TimeInterval
    /// The boot-time reading `served` was last brought up to.
    public private(set) var checkpoint: BootTimeReading?
    /// When root released the block (`system release`): no layer enforces
    /// it any more, and the session cannot raise it again. Kept until the
    /// session's planned end, or until its user lowers it, so the user's
    /// next command does not undo root's decision.
    public private(set) var releasedAt: Date?
    /// How a strict block may be lowered early, as its user's `unlock`
    /// said when it was raised; nil (blocks from before) is the passcode.
    /// Kept here, so editing the user's files changes nothing.
    public internal(set) var unlock: UnlockMethod?
    /// The countdown to lower it early (`unlock delay:`), once asked for.
    public internal(set) var countdown: UnlockCountdown?
    /// When its user typed back the text the service showed them
    /// (`unlock typing:N`, checked by the service itself): one early
    /// lowering within `HeldBlocks.typingProofLife` of it is admitted.
    public internal(set) var typedAt: Date?
    /// The group whose targets it blocks, as the session named it when it
    /// was first raised: what its allowance is spent of.
    public internal(set) var group: GroupID?
    /// The group's daily allowance as it was when the block was raised
    /// (or, for a block that is not strict, as its user set it since): the
    /// service counts `allow` against it, not against the user's files.
    public internal(set) var dailyAllowance: TimeInterval?
    /// The allowance running now, counted by the service: while it runs no
    /// layer enforces the block, and the service raises it at its end.
    public internal(set) var allowance: RunningAllowance?

    public init(uid: UInt32, session: SessionID, targets: [Target], strict: Bool, plannedEnd: Date?, length: TimeInterval?,
                at boot: BootTimeReading?, unlock: UnlockMethod? = nil) {
        self.unlock = unlock
        self.uid = uid
        self.session = session
        self.targets = targets
        self.strict = strict
        self.plannedEnd = plannedEnd
        self.length = length
        self.served = 0
        self.checkpoint = boot
    }

    /// Whether root released it: a record of that decision, not a block.
    public var isReleased: Bool { releasedAt != nil }

    /// When its user lowered this strict block early, by the unlock rule it
    /// was raised with (a pause or a stop): no layer enforces it, and the
    /// record is kept to the planned end so that a resume of its session
    /// raises it again under that rule, not the user's files' rule by then.
    /// A new session replaces it.
    public internal(set) var loweredAt: Date?

    /// Whether it holds its user now as a strict block: strict, neither
    /// released by root nor lowered early by its user.
    public var holdsStrictly: Bool { strict && !isReleased && loweredAt == nil }

    /// The plan of its strict session's fixed cycle, as first raised: the
    /// service lowers the block at each break and raises it at its end.
    public internal(set) var cycle: HeldCycle?

    /// Whether a layer enforces it at `now` (after `advance`): not
    /// released, no allowance running, and not in one of its cycle's breaks.
    public func isEnforced(at now: Date) -> Bool {
        !isReleased && loweredAt == nil && allowance == nil && breakNow(at: now) == nil
    }

    /// The break of its cycle the plan has at `now` (after `advance`).
    public func breakNow(at now: Date) -> (round: Int, end: Date)? {
        cycle?.breakNow(at: now, served: served, boot: checkpoint)
    }

    /// The same block, released by root at `date`.
    public func released(at date: Date) -> HeldBlock {
        var copy = self
        copy.releasedAt = date
        return copy
    }

    /// The strict-time rule as it holds this block: the length not yet
    /// served is owed as of the last checkpoint, and carries over a reboot.
    public var strictTime: StrictTime {
        StrictTime(plannedEnd: plannedEnd, owed: strict ? length.map { $0 - served } : nil, asOf: checkpoint,
                   reboot: .owedTimeCarriesOver)
    }

    /// Starts the count of boot time served again at `boot`: a block that
    /// has just become strict owes its whole length from now, as a block
    /// first raised strict does (the time it stood loosely is not served).
    mutating func restartCount(at boot: BootTimeReading?) {
        served = 0
        checkpoint = boot
    }

    /// Counts the boot time since the last checkpoint as served
    /// (`StrictTime.served(from:to:)`: after a reboot the time the machine
    /// was off is not served; the count goes on from the new boot's reading).
    public mutating func advance(to boot: BootTimeReading?) {
        served += StrictTime.served(from: checkpoint, to: boot)
        checkpoint = boot ?? checkpoint
    }

    /// Whether the block's time is up at `now` (after `advance`): the
    /// planned end has passed and, for a strict block, its whole length has
    /// been served (within the clocks' tolerance).
    public func isOver(at now: Date) -> Bool {
        // Nothing is served after a release: its record lasts to the planned end.
        guard !isReleased else { return plannedEnd.map { $0 <= now } ?? false }
        return strictTime.isOver(at: now, boot: checkpoint)
    }

    /// When the block's time is up, as of `now` on the wall clock: the
    /// planned end, or later while boot time is still owed; nil when
    /// open-ended.
    public func end(at now: Date) -> Date? {
        strictTime.end(at: now, boot: checkpoint)
    }
}
