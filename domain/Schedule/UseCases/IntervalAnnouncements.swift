import FoundationEssentials
import RetimeSession

extension SessionEventPublisher {
    /// An interval's warning, or its skip (another session was active).
    func interval(_ kind: SessionEvent.Kind, _ event: IntervalEvent, session: SessionID?, at instant: Date) async {
        await announce(kind, group: event.schedule.groupId, session: session, plannedEnd: event.interval.end,
                       origin: .schedule(event.schedule.name), warning: kind == .intervalWarning ? event.kind : nil, at: instant)
    }
}
