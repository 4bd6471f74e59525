import Foundation

/// The promises of semantics.md, "Devices you can trust", as the fleet
/// simulation checks them, named in one place.
enum FleetInvariant: String {
    /// No session ends before its planned end on the clock of the device
    /// that started it, strict or not, unless a person ended, paused or
    /// contested it: no device's history records it completed, and no
    /// device lowers its block, while that clock reads earlier than the
    /// planned end (less the minute two clocks may differ by and still
    /// agree).
    case noEarlyEnd
    /// A device whose folder shows a session ended never raises its block
    /// again, not for a moment.
    case endedStaysEnded
    /// Once the fabric has delivered everything, every acknowledged write
    /// is on every device: targets blocked are there, targets unblocked
    /// are gone, sessions stopped or cancelled are not running, stopped
    /// ones are in history.
    case acknowledgedWritesHold
    /// Once the fabric has delivered everything, every device has the
    /// same session slot and the same history.
    case devicesConverge
    /// Once delivered, what a device's block does is what its session
    /// says: up for a session running unpaused, down for one on a break or
    /// an allowance, or none.
    case blockFollowsTheSession
    /// Another device's file, however damaged, never makes a command fail.
    case peerDamageIsNotMine
    /// `doctor --repair` never changes another device's files.
    case repairLeavesPeersAlone
    /// A device's own damaged log reads again after `doctor --repair`,
    /// and what that device acknowledged holds (`acknowledgedWritesHold`).
    case ownDamageIsRecoverable
    /// A command fails only as the contract says it may (a refusal, a bad
    /// request), never with a crash or an error of the store.
    case commandsWork
    /// A device's own stamps stay near its own clock, whatever another
    /// device's stamps say.
    case stampsStayNearTheClock
}

/// What the simulation knows happened, to hold the devices to.
struct FleetModel {
    struct SessionFact {
        var id: String
        /// The device that started it.
        var device: Int
        var plannedEnd: Date?
        var strict: Bool
        /// The true time it started.
        var startedAt: Date
        /// A person stopped, cancelled, paused, resumed or allowed it, or
        /// started another session while it could still run somewhere:
        /// it may end early then, by the rules.
        var touched = false
        var stopped = false
        var cancelled = false
        /// The device that stopped or cancelled it, and the true time.
        var ended: (by: Int, at: Date)?
        /// Some device completed it, not early: a device that lowers its
        /// block on hearing so later does no wrong, whatever its clock
        /// reads by then.
        var completed = false
    }

    var sessions: [String: SessionFact] = [:]
    /// Targets some device blocked and nobody unblocked since: present.
    var blocked: Set<String> = []
    /// Targets some device unblocked (never blocked again): absent.
    var unblocked: Set<String> = []
    /// Devices whose clock once read year 4821.
    var farStamped: Set<Int> = []
    /// The true time each device's clock was last moved at, and the true
    /// time of its last command before that.
    var clockMoved: [Int: Date] = [:]
    var commandBeforeMove: [Int: Date] = [:]
    var nextTarget = 0
    /// The target the last block or unblock was about (what a command
    /// killed mid-way may or may not have done).
    var attemptedTarget: String?
    /// Per device, how many lines of its slot log were checked for their stamps.
    var stampedLines: [Int: Int] = [:]
    /// Per device, how many lines of its groups log were checked for theirs.
    var stampedGroupLines: [Int: Int] = [:]

    mutating func clockMoved(_ device: Int, at instant: Date, lastCommand: Date) {
        clockMoved[device] = instant
        commandBeforeMove[device] = lastCommand
    }

    /// A session started: every other that may still run somewhere is
    /// contested by it.
    mutating func started(_ fact: SessionFact) {
        for id in sessions.keys where !sessions[id]!.stopped && !sessions[id]!.cancelled { sessions[id]!.touched = true }
        sessions[fact.id] = fact
    }

    mutating func touched(_ id: String) { sessions[id]?.touched = true }
}
