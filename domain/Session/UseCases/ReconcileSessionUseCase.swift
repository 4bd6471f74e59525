/// Completes a session whose planned end has passed, at exactly its planned
/// end, and finishes an archival a crash interrupted. Every command runs it
/// first, so retime is right even when no daemon noticed the end on time; any
/// number of processes running it at once produce one history entry.
public struct ReconcileSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let clock: any Clock
    private let archiver: SessionArchiver
    private let logger: Logger

    public init(sessions: any SessionRepository, history: any SessionHistory, shield: any Shield,
                clock: any Clock, events: SessionEventPublisher, logger: Logger) {
        self.sessions = sessions
        self.clock = clock
        self.archiver = SessionArchiver(sessions: sessions, history: history, shield: shield, events: events)
        self.logger = logger
    }

    /// Returns the session this call completed, if any. Finishing the
    /// archival of a session that another process (or a crashed one) ended
    /// returns nil: that ending was not this call's.
    @discardableResult
    public func execute() async throws -> Session? {
        guard let current = try await sessions.current() else { return nil }
        guard current.isActive else {
            logger.notice("finishing the archival of an ended session", metadata: ["session": "\(current.id)"])
            try await archiver.finish(current)
            return nil
        }
        guard let plannedEnd = current.plannedEnd, current.isExpired(at: clock.now(), boot: clock.bootTime()) else { return nil }
        let ended = current.ending(at: plannedEnd, outcome: .completed)
        guard try await archiver.archive(current, as: ended) else { return nil }
        logger.info("session completed", metadata: ["session": "\(ended.id)", "plannedEnd": "\(Timestamp.format(plannedEnd))"])
        return ended
    }
}
