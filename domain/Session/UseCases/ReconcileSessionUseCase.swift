import RetimeShared

/// Completes a session whose planned end has passed, at exactly its planned
/// end, finishes an archival a crash interrupted, and raises the block of a
/// running session that a start killed mid-way left down. Every command runs
/// it first, so retime is right even when no daemon noticed the end on time;
/// any number of processes running it at once produce one history entry.
public struct ReconcileSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let shields: any ShieldDirectory
    private let clock: any Clock
    private let archiver: SessionArchiver
    private let logger: Logger

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, history: any SessionArchive, shields: any ShieldDirectory,
                clock: any Clock, events: SessionEventPublisher, logger: Logger) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.clock = clock
        self.archiver = SessionArchiver(sessions: sessions, history: history, shields: shields, events: events, groups: groups)
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
        guard let plannedEnd = current.plannedEnd, current.isExpired(at: clock.now(), boot: clock.bootTime()) else {
            try await tolerating(toleratingStuckBlock, current) { try await raiseIfDown(current) }
            return nil
        }
        let ended = current.ending(at: plannedEnd, outcome: .completed)
        var archived = true   // a stuck block still leaves the session completed and in history
        try await tolerating(toleratingStuckBlock, ended) { archived = try await archiver.archive(current, as: ended) }
        guard archived else { return nil }
        logger.info("session completed", metadata: ["session": "\(ended.id)", "plannedEnd": "\(Timestamp.format(plannedEnd))"])
        return ended
    }

    /// A start records its session, then raises the block: killed between
    /// the two, it leaves a session with no block, which is raised here.
    private func raiseIfDown(_ session: Session) async throws {
        guard !session.isPaused else { return }
        let shield = try shields.shield(of: session)
        var owner: SessionID?
        try await shield.guarded { owner = try await $0.state()?.session }
        guard owner != session.id else { return }
        let targets = try await groups.blockList(id: session.groupId)?.targets ?? []
        try await shield.guarded { try await $0.raise(targets, for: session) }
        logger.notice("raised the block of the running session, which was down", metadata: ["session": "\(session.id)"])
        // A pause or a stop in another process since the session was read
        // lifted its block first: the block raised here must not outlive it.
        if let now = try await sessions.current(), now.id == session.id, now.isActive, !now.isPaused { return }
        try await shield.guarded { try await $0.lower(for: session.id) }
    }

    private func tolerating(_ tolerate: Bool, _ session: Session, _ work: () async throws -> Void) async throws {
        do { try await work() } catch SessionError.historyNotWritten(let cause) where tolerate {
            // Not every command's business: `status`, `group` or `config`
            // go on; `start` (which does not tolerate) and `log` say why.
            logger.warning("the ended session could not be written to history; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(cause)"])
        } catch SessionError.blockNotLifted(let cause) where tolerate {
            logger.warning("the ended session's block could not be lifted; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(cause)"])
        } catch let error as SessionError where tolerate && session.isActive && error.isShieldFailure {
            logger.warning("the running session's block is down and could not be raised; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(error)"])
        }
    }
}
