import FoundationEssentials
import RetimeShared

/// The one owner of the active session: brings it up to date once per
/// command or daemon pass (`reconcile`), remembers what it found so the rest
/// of the pass does not read the slot or ask the shield again, and holds the
/// one routine that aligns the block with the session (`align`).
///
/// Reconcile completes a session whose planned end has passed, at exactly
/// its planned end (strict time: `StrictTime`), finishes an archival a crash
/// interrupted, and raises the block of a running session that a start
/// killed mid-way left down. Any number of processes running it at once
/// produce one history entry. First of all it settles sessions that two
/// devices sharing a data folder started at once (`ConcurrentStarts`).
public struct ActiveSession: Sendable {
    let sessions: any SessionRepository
    let groups: any SessionGroupLookup
    let shields: any ShieldDirectory
    let clock: any Clock
    let archiver: SessionArchiver
    private let concurrent: ConcurrentStarts
    let events: SessionEventPublisher
    let logger: Logger

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, history: any SessionArchive, shields: any ShieldDirectory,
                clock: any Clock, events: SessionEventPublisher, logger: Logger) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.clock = clock
        self.archiver = SessionArchiver(sessions: sessions, history: history, shields: shields, events: events, groups: groups)
        self.concurrent = ConcurrentStarts(sessions: sessions, history: history, shields: shields, clock: clock, logger: logger)
        self.events = events
        self.logger = logger
    }

    /// What one reconcile did and left: the rest of the command or pass
    /// works from it instead of reading the slot and the shield again.
    public struct Reconciled: Sendable {
        /// The session this call completed, if any. Finishing the archival
        /// of a session that another process (or a crashed one) ended is
        /// not this call's completion.
        public let completed: Session?
        /// The slot as this call left it; `.none` when it cannot know (it
        /// lost a race to another process), and the slot is read again.
        var slot: Session??
        /// The block the session's shield holds, as reconcile found or made
        /// it; `.none` when it did not ask.
        var block: ShieldState??
        /// The failure reconcile tolerated (logged as a warning), which a
        /// caller that must not tolerate it (`start`) throws.
        let tolerated: SessionError?

        /// The pass changed the slot to `session` itself (a start landed).
        public mutating func slotHolds(_ session: Session?) {
            slot = .some(session)
            block = .none
        }

        /// The pass changed the slot in a way it cannot follow: read it again.
        public mutating func forgetSlot() {
            slot = .none
            block = .none
        }

        /// Throws the failure reconcile tolerated: a block still up from an
        /// ended session makes a start fail with its cause, not with
        /// "already active".
        public func throwTolerated() throws(SessionError) {
            if let tolerated { throw tolerated }
        }
    }

    /// A block the shield cannot lift is logged as a warning and recorded in
    /// the result, not thrown, unless `toleratingStuckBlock` is false: the
    /// session is in history and every later call tries again, and `log` or
    /// `config` should not fail because the hosts file is read-only.
    public func reconcile(toleratingStuckBlock: Bool = true) async throws -> Reconciled {
        // Sessions two devices started at once, before either saw the
        // other's: one rule decides which runs, and the other ends in history.
        guard let current = try await concurrent.resolve(try await sessions.current()) else {
            try await lowerBlockEndedElsewhere()
            return Reconciled(completed: nil, slot: .some(nil), block: .none, tolerated: nil)
        }
        guard current.isActive else {
            logger.notice("finishing the archival of an ended session", metadata: ["session": "\(current.id)"])
            var emptied = false
            let tolerated = try await tolerating(toleratingStuckBlock, current) { emptied = try await archiver.finish(current) }
            return Reconciled(completed: nil, slot: emptied ? .some(nil) : tolerated == nil ? .none : .some(current), block: .none,
                              tolerated: tolerated)
        }
        let now = clock.now(), boot = clock.bootTime()
        if !current.isExpired(at: now, boot: boot), let due = current.dueUnlock(at: now, boot: boot) {
            return try await carryOut(due, of: current, toleratingStuckBlock: toleratingStuckBlock)
        }
        // An allowance that has run out: the block goes up again.
        if !current.isExpired(at: now, boot: boot), let ranOut = current.allowanceRunOut(at: now, boot: boot) {
            return try await endAllowance(ranOut, of: current, tolerating: toleratingStuckBlock)
        }
        // A cycle's edges that have come are passed first, at their instants
        // on its timeline: the session's end then finds its breaks closed.
        // Sleep the clocks tell of is recorded as soon as a command notices
        // it: a later reading, after the session's end, could say less.
        // And the clocks' reading, every `readingInterval`: a sleep noticed
        // later is placed after it (`Session+Readings`).
        let advanced = current.advancingCycle(at: now, boot: boot).noticingSuspend(at: now, boot: boot).stampingReading(at: now, boot: boot)
        guard let plannedEnd = advanced.plannedEnd, advanced.isExpired(at: now, boot: boot) else {
            if advanced != current { return try await followCycle(from: current, to: advanced, tolerating: toleratingStuckBlock) }
            var found: (slot: Session??, block: ShieldState??) = (.some(current), .none)
            let tolerated = try await tolerating(toleratingStuckBlock, current) { found = try await raiseIfDown(current) }
            return Reconciled(completed: nil, slot: found.slot, block: tolerated == nil ? found.block : .none, tolerated: tolerated)
        }
        // One history already holds has ended elsewhere: an edit of it made
        // on a device that had not seen it stopped, arriving after the
        // stopping device's log let the stop go, ran it again. History keeps
        // the ending it has; the block goes and the slot is emptied.
        if try await archiver.history.holds(current) {
            logger.notice("a session that had ended elsewhere came back past its end; history keeps its ending", metadata: ["session": "\(current.id)"])
            let emptied = try await archiver.discard(current)
            return Reconciled(completed: nil, slot: emptied ? .some(nil) : .none, block: .none, tolerated: nil)
        }
        let ended = advanced.ending(at: plannedEnd, outcome: .completed)
        var archived = true   // a stuck block still leaves the session completed and in history
        var emptied = false
        let tolerated = try await tolerating(toleratingStuckBlock, ended) {
            (archived, emptied) = try await archiver.archiving(current, as: ended)
        }
        guard archived else { return Reconciled(completed: nil, slot: .none, block: .none, tolerated: tolerated) }
        logger.info("session completed", metadata: ["session": "\(ended.id)", "plannedEnd": "\(Timestamp.format(plannedEnd))"])
        return Reconciled(completed: ended, slot: emptied ? .some(nil) : tolerated == nil ? .none : .some(ended), block: .none,
                          tolerated: tolerated)
    }

    /// The session in the slot after `reconciled`: read again only when
    /// reconcile could not know it.
    public func current(after reconciled: Reconciled) async throws -> Session? {
        if case .some(let slot) = reconciled.slot { return slot }
        return try await sessions.current()
    }

    /// The block `session`'s shield holds after `reconciled`: asked again
    /// only when reconcile did not ask.
    func block(of session: Session, through shield: any Shield, after reconciled: Reconciled) async throws -> ShieldState? {
        if case .some(let slot) = reconciled.slot, slot?.id == session.id, case .some(let block) = reconciled.block { return block }
        return try await shield.state()
    }

    /// A start records its session, then raises the block: killed between
    /// the two, it leaves a session with no block, which is raised here.
    /// Returns the slot and the block as it left them.
    func raiseIfDown(_ session: Session) async throws -> (slot: Session??, block: ShieldState??) {
        guard !session.blockIsLifted else { return (.some(session), .none) }
        let shield = try shields.shield(of: session)
        let aligned = try await Self.align(session, through: shield, groups: groups, .raisingIfDown)
        guard aligned.raised != nil else { return (.some(session), .some(aligned.found.block)) }
        logger.notice("raised the block of the running session, which was down", metadata: ["session": "\(session.id)"])
        // A pause or a stop in another process since the session was read
        // lifted its block first: the block raised here must not outlive it.
        if let now = try await sessions.current(), now.id == session.id, now.isActive, !now.blockIsLifted { return (.some(now), .none) }
        try await shield.guarded { try await $0.lower(for: session.id) }
        return (.none, .none)
    }

    /// Lowers a block this machine's configured shield still holds for a
    /// session that is no longer in the slot: one stopped on another device
    /// sharing the data folder, whose stop lowered only that device's own
    /// shield. Run by the daemon's pass. The slot is read again once a block
    /// is found: a start records its session before it raises, so a block
    /// of a session just started is seen with its session, never lowered.
    /// Returns the session whose block it lowered.
    public func lowerOrphanedBlock(after reconciled: Reconciled) async throws -> SessionID? {
        guard try await current(after: reconciled) == nil else { return nil }
        let shield = try shields.configured()
        guard let block = try await shield.state() else { return nil }
        if let now = try await sessions.current(), now.id == block.session { return nil }
        // Only the block of the session this folder's slot last held: the
        // system service holds one block per user, which may be a session
        // of the user's other data directory.
        guard try await sessions.lastHeld() == block.session else { return nil }
        try await shield.guarded { try await $0.lower(for: block.session) }
        logger.notice("lowered the block of a session that ended elsewhere", metadata: ["session": "\(block.session)"])
        return block.session
    }

    /// With the slot empty: lowers the block this machine's shield still
    /// holds for a session another device sharing the data folder stopped
    /// (its stop lowered only that device's block), so a command here does
    /// not report no session while the sites stay blocked. The shield is
    /// asked only when another device emptied the slot. A block that cannot
    /// be lowered is a warning: the next command or the daemon tries again.
    private func lowerBlockEndedElsewhere() async throws {
        guard let ended = try await sessions.endedElsewhere() else { return }
        do {
            let shield = try shields.configured()
            var held: ShieldState?
            try await shield.guarded { held = try await $0.state() }
            guard let block = held, block.session == ended else { return }
            // A start here since the slot was read records its session
            // before it raises: a block seen with its session is not orphaned.
            if let now = try await sessions.current(), now.id == block.session { return }
            try await shield.guarded { try await $0.lower(for: block.session) }
            logger.notice("lowered the block of a session stopped on another device", metadata: ["session": "\(block.session)"])
        } catch let error as SessionError where error.isShieldFailure {
            logger.warning("the block of a session stopped on another device could not be lowered; retime tries again with every command",
                           metadata: ["session": "\(ended)", "cause": "\(error)"])
        }
    }

    /// Returns the failure tolerated, if any.
    func tolerating(_ tolerate: Bool, _ session: Session, _ work: () async throws -> Void) async throws -> SessionError? {
        do { try await work() } catch SessionError.historyNotWritten(let cause) where tolerate {
            // Not every command's business: `status`, `group` or `config`
            // go on; `start` (which does not tolerate) and `log` say why.
            logger.warning("the ended session could not be written to history; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(cause)"])
            return .historyNotWritten(cause)
        } catch SessionError.blockNotLifted(let cause) where tolerate {
            logger.warning("the ended session's block could not be lifted; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(cause)"])
            return .blockNotLifted(cause)
        } catch let error as SessionError where tolerate && session.isActive && error.isShieldFailure {
            logger.warning("the running session's block is down and could not be raised; retime tries again with every command",
                           metadata: ["session": "\(session.id)", "cause": "\(error)"])
            return error
        }
        return nil
    }
}
