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
    ///
    /// A block the shield cannot lift is logged as a warning, not thrown,
    /// unless `toleratingStuckBlock` is false: the session is in history
    /// and every later call tries again, and `log` or `config` should not
    /// fail because the hosts file is read-only. Starting a new session
    /// should (its block would fail the same way).
    @discardableResult
    public func execute(toleratingStuckBlock: Bool = true) async throws -> Session? {
        guard let current = try await sessions.current() else { return nil }
        guard current.isActive else {
            logger.notice("finishing the archival of an ended session", metadata: ["session": "\(current.id)"])
            try await tolerating(toleratingStuckBlock, current) { try await archiver.finish(current) }
            return nil
        }
        guard let plannedEnd = current.plannedEnd, current.isExpired(at: clock.now(), boot: clock.bootTime()) else { return nil }
        let ended = current.ending(at: plannedEnd, outcome: .completed)
        var archived = true   // a stuck block still leaves the session completed and in history
        try await tolerating(toleratingStuckBlock, ended) { archived = try await archiver.archive(current, as: ended) }
        guard archived else { return nil }
        logger.info("session completed", metadata: ["session": "\(ended.id)", "plannedEnd": "\(Timestamp.format(plannedEnd))"])
        return ended
    }

    private func tolerating(_ tolerate: Bool, _ session: Session, _ work: () async throws -> Void) async throws {
        do { try await work() } catch SessionError.blockNotLifted(let cause) where tolerate {
            logger.warning("the ended session's block could not be lifted; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(cause)"])
        }
    }
}
