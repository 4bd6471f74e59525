import FoundationEssentials
import RetimeShared
import RetimeSync

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
    /// The clock that judges the session in hand: this machine's, or the
    /// clock of the device that started it when the two disagree
    /// (`judging`, `SessionClocks`).
    private(set) var clock: any Clock
    /// Which clock judges which session.
    public let clocks: SessionClocks
    let archiver: SessionArchiver
    private let concurrent: ConcurrentStarts
    let events: SessionEventPublisher
    let logger: Logger

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, history: any SessionArchive, shields: any ShieldDirectory,
                clock: any Clock, devices: any DeviceDirectory, events: SessionEventPublisher, logger: Logger) {
        self.sessions = sessions
        self.groups = groups
        self.shields = shields
        self.clock = clock
        clocks = SessionClocks(clock: clock, devices: devices)
        self.archiver = SessionArchiver(sessions: sessions, history: history, shields: shields, events: events, groups: groups)
        self.concurrent = ConcurrentStarts(sessions: sessions, history: history, shields: shields, clocks: clocks, logger: logger)
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
    ///
    /// `sweeping`: with the slot empty, also lower a block this machine
    /// still holds for a session this folder shows ended (one more look at
    /// the shield). `start` raises its own block in its place; the daemon's
    /// pass looks after (`lowerOrphanedBlock`): both skip it.
    public func reconcile(toleratingStuckBlock: Bool = true, sweeping: Bool = true) async throws -> Reconciled {
        // Sessions two devices started at once, before either saw the
        // other's: one rule decides which runs, and the other ends in history.
        guard let current = try await concurrent.resolve(try await sessions.current()) else {
            try await lowerBlockEndedElsewhere(sweeping: sweeping)
            return Reconciled(completed: nil, slot: .some(nil), block: .none, tolerated: nil)
        }
        return try await judging(current).reconcile(current, toleratingStuckBlock: toleratingStuckBlock)
    }

    /// This owner with the clock that judges `session` here (`SessionClocks`).
    public func judging(_ session: Session?) -> ActiveSession {
        var judged = self
        judged.clock = clocks.clock(for: session)
        return judged
    }

    /// The rest of `reconcile`, on the clock that judges `current`.
    private func reconcile(_ current: Session, toleratingStuckBlock: Bool) async throws -> Reconciled {
        guard current.isActive else {
            logger.notice("finishing the archival of an ended session", metadata: ["session": "\(current.id)"])
            var emptied = false
            let tolerated = try await tolerating(toleratingStuckBlock, current) { emptied = try await archiver.finish(current) }
            if emptied { try await lowerEndedBlock(lastEnded: current.id) }
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
            if advanced != current {
                // On a break or an allowance that history says has ended (as
                // in `raiseIfDown`): its reading is not stamped, and nothing
                // after (a resume) raises its block again.
                if current.blockIsLifted, try await archiver.history.holds(current) {
                    let found = try await putAwayEnded(current)
                    return Reconciled(completed: nil, slot: found.slot, block: found.block, tolerated: nil)
                }
                return try await followCycle(from: current, to: advanced, tolerating: toleratingStuckBlock)
            }
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
            if emptied { try await lowerEndedBlock(lastEnded: current.id) }
            return Reconciled(completed: nil, slot: emptied ? .some(nil) : .none, block: .none, tolerated: nil)
        }
        let ended = advanced.ending(at: plannedEnd, outcome: .completed)
        var archived = true   // a stuck block still leaves the session completed and in history
        var emptied = false
        let tolerated = try await tolerating(toleratingStuckBlock, ended) {
            (archived, emptied) = try await archiver.archiving(current, as: ended)
        }
        guard archived else { return Reconciled(completed: nil, slot: .none, block: .none, tolerated: tolerated) }
        if emptied { try await lowerEndedBlock(lastEnded: current.id) }
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
        guard !session.blockIsLifted else {
            // On a break that history says has ended (an older copy of the
            // log of the device that ended it came first): a resume would
            // raise its block again.
            guard try await archiver.history.holds(session) else { return try await lowerIfUp(session) }
            return try await putAwayEnded(session)
        }
        let shield = try shields.shield(of: session)
        // A session history holds has ended, wherever it came back from (an
        // older copy of another device's log, one of them damaged): its
        // block is not raised again, not for a moment; asked only when the
        // block is down, so a session whose block is up costs nothing more.
        var ended = false
        let aligned = try await Self.align(session, through: shield, groups: groups, .raisingIfDown, vetting: { running in
            ended = try await archiver.history.holds(running)
            return !ended
        })
        if ended { return try await putAwayEnded(session) }
        guard aligned.raised != nil else { return (.some(session), .some(aligned.found.block)) }
        logger.notice("raised the block of the running session, which was down", metadata: ["session": "\(session.id)"])
        // Often from another device's value: if that device cancels it and
        // its log lets the removal go before this one hears of it, what
        // this machine raised the block from is all that tells it ended.
        do { try await sessions.blockRaised(for: session.id) } catch {
            logger.debug("could not note where the block was raised from", metadata: ["session": "\(session.id)", "cause": "\(error)"])
        }
        // A pause or a stop in another process since the session was read
        // lifted its block first: the block raised here must not outlive it.
        if let now = try await sessions.current(), now.id == session.id, now.isActive, !now.blockIsLifted { return (.some(now), .none) }
        try await shield.guarded { try await $0.lower(for: session.id) }
        return (.none, .none)
    }

    /// A session on a break or an allowance whose block this machine's
    /// shield still holds: the break or the allowance was taken on another
    /// device sharing the data folder, whose own block alone came down. It
    /// comes down here too (semantics.md, "Shared state is shared"): as a
    /// break (`lower`) or as what is left of the allowance (`allow`, which a
    /// shield that counts allowances itself holds to its own count). A
    /// shield that refuses (the system service holding a strict block)
    /// keeps it up, which is logged: a block stronger than asked, never
    /// weaker. The slot is read again first: a resume in another process
    /// since the session was read raises its block, which must stay.
    func lowerIfUp(_ session: Session) async throws -> (slot: Session??, block: ShieldState??) {
        let shield = try shields.shield(of: session)
        var held: ShieldState?
        try await shield.guarded { held = try await $0.state() }
        guard let block = held, !block.released else { return (.some(session), .some(held)) }
        guard block.session == session.id else {
            // An older session's block (this machine ran no command while it
            // ended and this one began elsewhere): it goes if it has ended.
            if try await hasEnded(block.session) { try await lowerEndedBlock(lastEnded: block.session) }
            return (.some(session), .none)
        }
        guard let now = try await sessions.current(), now == session else { return (.none, .none) }
        do {
            if let allowance = session.allowance {
                let left = allowance.end(at: clock.now(), boot: clock.bootTime()).timeIntervalSince(clock.now())
                guard left >= 1 else { return (.some(session), .some(block)) }
                try await shield.guarded { _ = try await $0.allow(for: session.id, length: left, daily: session.dailyAllowance) }
            } else {
                try await shield.guarded { try await $0.lower(for: session.id) }
            }
        } catch {
            logger.warning("the block of a session on a break or an allowance elsewhere stays up here",
                           metadata: ["session": "\(session.id)", "reason": "\(error)"])
            return (.some(session), .some(block))
        }
        logger.notice("lowered the block of the running session, on a break or an allowance taken elsewhere", metadata: ["session": "\(session.id)"])
        return (.some(session), .some(nil))
    }

    /// Empties the slot of `session`, which history holds: it ended, and
    /// came back in an old or damaged copy of a file. History keeps its
    /// ending; its block goes.
    private func putAwayEnded(_ session: Session) async throws -> (slot: Session??, block: ShieldState??) {
        logger.notice("a session that had ended came back in an old or damaged copy of a file; history keeps its ending",
                      metadata: ["session": "\(session.id)"])
        guard try await archiver.discard(session) else { return (.none, .none) }
        try await lowerEndedBlock(lastEnded: session.id)
        return (.some(nil), .none)
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
        // of the user's other data directory. And while another device's
        // log of the slot does not read, only one this folder shows ended:
        // the slot may miss a session running there.
        let lastHeld = try await sessions.lastHeld(), partial = try await sessions.leavesOut()
        if lastHeld != block.session || partial {
            guard try await hasEnded(block.session) else { return nil }
        }
        try await shield.guarded { try await $0.lower(for: block.session) }
        logger.notice("lowered the block of a session that ended elsewhere", metadata: ["session": "\(block.session)"])
        return block.session
    }

    /// With the slot empty: lowers the block this machine's shield still
    /// holds for a session another device sharing the data folder stopped
    /// (its stop lowered only that device's block), or for any session this
    /// folder shows ended, so a command here does not report no session
    /// while the sites stay blocked (semantics.md, "Shared state is
    /// shared"). A block that cannot be lowered is a warning when another
    /// device emptied the slot: the next command or the daemon tries again.
    private func lowerBlockEndedElsewhere(sweeping: Bool) async throws {
        let ended = try await sessions.endedElsewhere()
        guard ended != nil || sweeping else { return }
        try await lowerEndedBlock(lastEnded: ended)
    }

    /// Lowers the block this machine's shield holds for `lastEnded`, or for
    /// an older session whose ending this folder holds: one another device
    /// ended while this one held its block, which this machine's own ending
    /// of the next one (or another device's) never named. Run when the slot
    /// was emptied elsewhere, and after this call emptied it itself.
    func lowerEndedBlock(lastEnded ended: SessionID?) async throws {
        do {
            let shield = try shields.configured()
            var held: ShieldState?
            try await shield.guarded { held = try await $0.state() }
            // The slot's last session, or an older one whose ending this
            // folder holds (this machine ran no command while it ended and
            // the next one ran elsewhere).
            guard let block = held else { return }
            if block.session != ended { guard try await hasEnded(block.session) else { return } }
            // (With the slot emptied here, the block goes only if this folder
            // shows its session ended: one raised for a session of another
            // data directory of this user, by the system service, stays.)
            // A start here since the slot was read records its session
            // before it raises: a block seen with its session is not orphaned.
            if let now = try await sessions.current(), now.id == block.session { return }
            try await shield.guarded { try await $0.lower(for: block.session) }
            logger.notice("lowered the block of a session stopped on another device", metadata: ["session": "\(block.session)"])
        } catch let error as SessionError where error.isShieldFailure {
            // Only a block known to be up is worth a warning at every command.
            guard let ended else { return }
            logger.warning("the block of a session stopped on another device could not be lowered; retime tries again with every command",
                           metadata: ["session": "\(ended)", "cause": "\(error)"])
        } catch where ended == nil {
            // A sweep for a block no ending named is every command's, and
            // none of them fails for it (damaged settings that say which
            // shield are the command's own business, or doctor's).
            logger.debug("could not look for a block of a session ended elsewhere", metadata: ["cause": "\(error)"])
        }
    }

    /// Whether this folder shows the session `id` ended: its slot's records
    /// (an ending, a removal, a session that took its place), or history,
    /// which holds it once it ended anywhere.
    func hasEnded(_ id: SessionID) async throws -> Bool {
        if try await sessions.hasEnded(id) { return true }
        // No value of it left in the slot's records: the device that ended
        // it has ended more since, and its log keeps only its last few
        // removals (compaction), so a machine that held the block and heard
        // nothing meanwhile finds no trace of it there. History still
        // holds it, in a month its start no longer tells.
        guard let value = try await sessions.lastValue(of: id) else { return try await archiver.history.holds(id: id) }
        return try await archiver.history.holds(value)
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
