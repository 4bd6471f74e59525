import FoundationEssentials
import RetimeGroup

/// Something that happened to a session or a schedule's interval that the
/// user's hooks (and, for some, the desktop) are told about. Carries what
/// a hook needs without looking anything up: the group's name and targets,
/// the planned end, the origin.
public struct SessionEvent: Sendable, Equatable {
    /// The events, named as the hook executables are.
    public enum Kind: String, Sendable, CaseIterable {
        case sessionStarted = "session-started"
        case sessionEnded = "session-ended"
        case sessionPaused = "session-paused"
        case sessionResumed = "session-resumed"
        case intervalWarning = "interval-warning"
        case intervalSkipped = "interval-skipped"
        /// A countdown to end or pause a strict session early started (`unlock delay:`).
        case unlockRequested = "unlock-requested"
        /// That countdown was withdrawn (`stop --withdraw`).
        case unlockWithdrawn = "unlock-withdrawn"
        /// A cycle's phase began (`RETIME_PHASE`, `RETIME_ROUND`).
        case phaseStarted = "phase-started"
    }

    public var kind: Kind
    public var at: Date
    /// The session concerned; nil for an interval's start warning and a skip.
    public var sessionId: SessionID?
    /// nil when the group has been deleted.
    public var groupName: String?
    public var targets: [Target]
    public var plannedEnd: Date?
    public var origin: SessionOrigin
    /// How a session ended (`session-ended` only).
    public var outcome: SessionOutcome?
    /// Which warning (`interval-warning` only): before the start or before the end.
    public var warning: IntervalEventKind?
    /// The phase that began (`phase-started` only).
    public var phase: CyclePhase?

    public init(kind: Kind, at: Date, sessionId: SessionID?, groupName: String?, targets: [Target], plannedEnd: Date?,
                origin: SessionOrigin, outcome: SessionOutcome? = nil, warning: IntervalEventKind? = nil, phase: CyclePhase? = nil) {
        self.kind = kind
        self.at = at
        self.sessionId = sessionId
        self.groupName = groupName
        self.targets = targets
        self.plannedEnd = plannedEnd
        self.origin = origin
        self.outcome = outcome
        self.warning = warning
        self.phase = phase
    }
}

/// The four events of a schedule's interval, in the order they happen.
/// Named here, not in the Schedule context, because session events (and so
/// hooks and notifications) carry them.
public enum IntervalEventKind: String, Sendable, Hashable, CaseIterable, Codable {
    case intervalWillStartWarning, intervalDidStart, intervalWillEndWarning, intervalDidEnd
}
