import FoundationEssentials
import RetimeGroup
import RetimeShared

/// Tells the world what happened: every event is recorded (`Tracker`) and
/// logged, once each, the hook events run the user's hooks, and interval
/// warnings and session ends also go to the desktop. The one place that
/// decides who hears what; the use cases and the daemon's loop only say
/// what happened, and log nothing of it themselves.
public struct SessionEventPublisher: Sendable {
    private let tracker: any Tracker
    private let logger: Logger
    private let hooks: any EventHooks
    private let notifier: (any Notifier)?
    private let groups: any SessionGroupLookup

    /// The events a desktop notification is shown for.
    public static let notified: Set<SessionEvent.Kind> = [.intervalWarning, .sessionEnded, .phaseStarted]

    /// With no `notifier`, nothing goes to the desktop (`notify off`, or no
    /// desktop to show it on).
    public init(tracker: any Tracker, hooks: any EventHooks, notifier: (any Notifier)?, groups: any SessionGroupLookup, logger: Logger) {
        self.tracker = tracker
        self.logger = logger
        self.hooks = hooks
        self.notifier = notifier
        self.groups = groups
    }

    /// Records an event that no hook hears (`interval-started`, `session-completed`, ...).
    public func record(_ event: TrackedEvent) {
        tracker.track(event)
        logger.info("\(event.name)", metadata: event.properties.mapValues { .string($0.description) })
    }

    /// A session started, ended, paused or resumed. `group` is the session's
    /// group when the caller has just read it; otherwise its name is looked
    /// up, and its targets only if a hook hears this event.
    public func session(_ kind: SessionEvent.Kind, _ session: Session, at instant: Date, group known: BlockList? = nil) async {
        record(.sessionEvent(kind.rawValue, session, at: instant))
        let group: BlockList? = if let known { known } else if hooks.listens(to: kind) { await blockList(session.groupId) } else {
            ((try? await groups.groupName(id: session.groupId)) ?? nil).map { BlockList(groupId: session.groupId, name: $0, targets: []) }
        }
        deliver(SessionEvent(kind: kind, at: instant, sessionId: session.id, groupName: group?.name,
                             targets: group?.targets ?? [], plannedEnd: session.plannedEnd, origin: session.origin,
                             outcome: kind == .sessionEnded ? session.outcome : nil))
    }

    /// A cycle's phase began: a break (the block is down) or work (it is
    /// up). `handledAt`: when the block followed an edge that came by
    /// itself, recorded with how late that was (`lateMs`, as a session's
    /// completion is).
    public func phaseStarted(_ phase: CyclePhase, of session: Session, at instant: Date, handledAt: Date? = nil) async {
        var event = TrackedEvent.sessionEvent(SessionEvent.Kind.phaseStarted.rawValue, session, at: instant)
        event.properties["phase"] = .string(phase.kind.rawValue)
        event.properties["round"] = .int(phase.round)
        if let handledAt { event.properties["lateMs"] = .int(Int((handledAt.timeIntervalSince(instant) * 1_000).rounded())) }
        record(event)
        let group: BlockList? = hooks.listens(to: .phaseStarted) ? await blockList(session.groupId)
            : ((try? await groups.groupName(id: session.groupId)) ?? nil).map { BlockList(groupId: session.groupId, name: $0, targets: []) }
        deliver(SessionEvent(kind: .phaseStarted, at: instant, sessionId: session.id, groupName: group?.name, targets: group?.targets ?? [],
                             plannedEnd: session.plannedEnd, origin: session.origin, phase: phase))
    }

    /// An event of a schedule's interval (a warning, or a skip because
    /// another session was active), told about its group: the Schedule
    /// context says what happened, this decides who hears it.
    public func announce(_ kind: SessionEvent.Kind, group groupId: GroupID, session: SessionID?, plannedEnd: Date?,
                         origin: SessionOrigin, warning: IntervalEventKind?, at instant: Date) async {
        let group = await blockList(groupId)
        deliver(SessionEvent(kind: kind, at: instant, sessionId: session, groupName: group?.name,
                             targets: group?.targets ?? [], plannedEnd: plannedEnd, origin: origin, warning: warning))
    }

    private func deliver(_ event: SessionEvent) {
        hooks.run(event)
        if Self.notified.contains(event.kind) { notifier?.notify(event) }
    }

    /// The group, if it can be read: a hook hears about a deleted or
    /// unreadable group with no name rather than not at all.
    private func blockList(_ id: GroupID) async -> BlockList? {
        (try? await groups.blockList(id: id)) ?? nil
    }
}
