import FoundationEssentials
import RetimeGroup
import RetimeSession
import RetimeShared

/// The system service's authority over the blocks it holds (semantics.md,
/// "The system service"): any user may raise a block for itself and lower
/// its own; a strict block only once its time is up by both clocks; root
/// may release any, and that release is final for its session. Every
/// change is made under the store's lock and then enforced by every layer,
/// which is given all users' blocks at once. A layer that fails does not
/// undo a change nor stop the others: the block is held, the failure is
/// reported (`reports()`), and the layer is given the blocks again soon.
public struct HeldBlocks: Sendable {
    let store: any HeldBlockStore
    private let layers: [any BlockLayer]
    let clock: any Clock
    let logger: Logger
    private let health: LayerHealth
    /// Where the service counts what each user spent of each group's
    /// allowance (its own state, not the user's files); nil: it keeps no
    /// allowances.
    let allowances: (@Sendable (UInt32) -> any AllowanceLedger)?
    /// The machine's time zone: the local day an allowance is spent on.
    let zone: @Sendable () -> TimeZoneRules

    public init(store: any HeldBlockStore, layers: [any BlockLayer], clock: any Clock, logger: Logger,
                health: LayerHealth = LayerHealth(), allowances: (@Sendable (UInt32) -> any AllowanceLedger)? = nil,
                zone: @escaping @Sendable () -> TimeZoneRules = { .utc }) {
        self.allowances = allowances
        self.zone = zone
        self.store = store
        self.layers = layers
        self.clock = clock
        self.logger = logger
        self.health = health
    }

    /// What a user asks to have blocked.
    public struct Request: Sendable, Equatable {
        public var session: SessionID
        public var targets: [Target]
        public var strict: Bool
        public var plannedEnd: Date?
        public var length: TimeInterval?
        /// How a strict block may be lowered early (the user's `unlock`
        /// when the session started); kept with the block when it is first raised.
        public var unlock: UnlockMethod?
        /// The session's group, and its daily allowance as the session
        /// starts (kept with a strict block as first raised).
        public var group: GroupID?
        public var dailyAllowance: TimeInterval?
        /// A strict session's fixed focus cycle and the session's start:
        /// the service lowers the block at its breaks itself.
        public var cycle: Cycle?
        public var startedAt: Date?

        public init(session: SessionID, targets: [Target], strict: Bool, plannedEnd: Date?, length: TimeInterval?,
                    unlock: UnlockMethod? = nil, group: GroupID? = nil, dailyAllowance: TimeInterval? = nil,
                    cycle: Cycle? = nil, startedAt: Date? = nil) {
            self.cycle = cycle
            self.startedAt = startedAt
            self.unlock = unlock
            self.group = group
            self.dailyAllowance = dailyAllowance
            self.session = session
            self.targets = targets
            self.strict = strict
            self.plannedEnd = plannedEnd
            self.length = length
        }
    }

    /// Raises (or raises again, with new targets) `uid`'s block for a
    /// session. A block only tightens (`HeldBlock.tighten(by:now:boot:)`):
    /// a strict block keeps every target it had, and a raise takes the
    /// stricter of the held terms and its own. A user's block of another
    /// session is replaced, unless it is strict and its time is not up. A session whose block
    /// root released is not raised again. The block is held even when a
    /// layer fails to enforce it: the answer's reports say which.
    @discardableResult
    public func raise(_ request: Request, for uid: UInt32) async throws -> HeldBlock {
        let now = clock.now(), boot = clock.bootTime()
        var ended: [HeldBlock] = []
        var madeStrict = false
        // Whether the raise changed anything: a new block, or one it
        // tightened, gave targets or raised again (a re-raise of the same
        // terms, as every refresh sends, is no news for the journal).
        var changed = true
        let (block, all) = try await store.update { blocks -> (HeldBlock, [HeldBlock]) in
            ended = expire(&blocks, now: now, boot: boot).allowancesEnded
            if let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == request.session }) {
                guard !blocks[index].isReleased else { throw HeldBlockError.released }
                var kept = blocks[index]
                let wasStrict = kept.strict
                // A block only tightens: whatever was raised under this id
                // before (early, twice, out of order) cannot loosen this raise.
                kept.tighten(by: request, now: now, boot: boot)
                try Self.checkSize(kept.targets)
                madeStrict = kept.strict && !wasStrict
                // Raising is always allowed: a running allowance ends now
                // (`allow --cancel`, or its end seen first by the user's daemon).
                if kept.allowance != nil { ended.append(kept); kept.allowance = nil }
                // Raising in a break of the cycle is `next` into work: the
                // break ends now (shortening a break is always allowed).
                if var cycle = kept.cycle, cycle.endBreak(at: now, served: kept.served, boot: kept.checkpoint) {
                    kept.cycle = cycle
                    logger.info("a break ended early; raised", metadata: ["uid": "\(uid)", "session": "\(request.session)"])
                }
                // A resume after an early pause: raised again under the
                // rule it was raised with; a new countdown for a new pause.
                if kept.loweredAt != nil {
                    kept.loweredAt = nil
                    kept.countdown = nil
                    kept.typedAt = nil
                }
                // A strict block keeps the group and allowance it was first
                // raised strict with.
                if !wasStrict, let daily = request.dailyAllowance { kept.dailyAllowance = daily }
                if kept.group == nil || (kept.strict && !wasStrict) { kept.group = request.group ?? kept.group }
                changed = kept != blocks[index]
                blocks[index] = kept
                return (kept, blocks)
            }
            if let held = blocks.first(where: { $0.uid == uid && $0.holdsStrictly }) {
                throw HeldBlockError.anotherStrictBlock(until: held.end(at: now))
            }
            try Self.checkSize(request.targets)
            blocks.removeAll { $0.uid == uid }
            var block = HeldBlock(uid: uid, session: request.session, targets: request.targets, strict: request.strict,
                                  plannedEnd: request.plannedEnd, length: request.length, at: boot,
                                  unlock: request.strict ? request.unlock : nil)
            block.group = request.group
            block.dailyAllowance = request.dailyAllowance
            // Only a strict session's fixed cycle: the user's own commands
            // lower and raise any other block at its breaks.
            block.cycle = HeldBlock.heldCycle(of: request, at: now, boot: boot)
            blocks.append(block)
            return (block, blocks)
        }
        await giveBack(ended, at: now, boot: boot)
        await enforce(all)
        if madeStrict {
            logger.notice("a block held loosely was raised strict; it takes the strict terms",
                          metadata: ["uid": "\(uid)", "session": "\(request.session)"])
        }
        logger.log(level: changed ? .notice : .debug, "raised",
                   metadata: ["uid": "\(uid)", "session": "\(request.session)", "targets": "\(block.targets.count)", "strict": "\(block.strict)"])
        return block
    }

    /// Lowers `uid`'s block of `session`; nothing to lower is not an error
    /// (a repeated lower). A strict block whose time is not up stays, unless
    /// `overridden` (the user's passcode was right).
    public func lower(_ session: SessionID, for uid: UInt32, overridden: Bool = false, typed: Int? = nil) async throws {
        let now = clock.now(), boot = clock.bootTime()
        let (changed, all): (Bool, [HeldBlock])
        var ended: [HeldBlock] = []
        do {
            (changed, all) = try await store.update { blocks -> (Bool, [HeldBlock]) in
            ended = expire(&blocks, now: now, boot: boot).allowancesEnded
            guard let block = blocks.first(where: { $0.uid == uid && $0.session == session }) else { return (false, blocks) }
            // Root's release stays on record to the session's end: a pause
            // and a resume must not raise what root lifted.
            guard !block.isReleased else { return (false, blocks) }
            // Lowered early already (a pause): nothing more to lower.
            guard block.loweredAt == nil else { return (false, blocks) }
            if block.strict, !block.isOver(at: now) {
                // In a break of its cycle the block is down already, and
                // comes back at the break's end: kept, nothing to refuse.
                if block.breakNow(at: now) != nil, !overridden, typed == nil { return (false, blocks) }
                try Self.admitEarly(block, overridden: overridden, typed: typed, at: now)
                // Kept, lowered: a resume raises it under the same rule.
                if let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == session }) {
                    if block.allowance != nil { ended.append(block) }
                    blocks[index].loweredAt = now
                    blocks[index].allowance = nil
                    blocks[index].typedAt = nil
                    return (true, blocks)
                }
            }
            if block.allowance != nil { ended.append(block) }
            blocks.removeAll { $0.uid == uid && $0.session == session }
            return (true, blocks)
            }
        } catch let refusal as HeldBlockError {
            // An attempt to end a strict block early is the administrator's business.
            logger.notice("refused to lower a strict block early", metadata: ["uid": "\(uid)", "session": "\(session)"])
            throw refusal
        }
        await giveBack(ended, at: now, boot: boot)
        await enforce(all)
        if changed { logger.notice("lowered", metadata: ["uid": "\(uid)", "session": "\(session)", "overridden": "\(overridden)"]) }
    }

    /// Whether a strict block whose time is not up may be lowered now, by
    /// the unlock rule it was raised with (not the user's files now): the
    /// passcode (`overridden`), text typed back (`typed`), its countdown
    /// run out, or never. Throws the refusal.
    static func admitEarly(_ block: HeldBlock, overridden: Bool, typed: Int?, at now: Date) throws(HeldBlockError) {
        switch block.unlock ?? .passcode {
        case .passcode:
            guard overridden else { throw .strict(until: block.end(at: now)) }
        case .never:
            throw .strict(until: block.end(at: now))
        case .typing:
            // The service's own check of the text typed back (`proveTyping`),
            // not a count the client claims.
            guard let proved = block.typedAt, now >= proved, now.timeIntervalSince(proved) <= typingProofLife else {
                throw .strict(until: block.end(at: now))
            }
        case .delay:
            guard let countdown = block.countdown else { throw .strict(until: block.end(at: now)) }
            guard countdown.isOver(for: block, at: now) else { throw .countdown(until: countdown.end(for: block, at: now)) }
        }
    }

    /// Root lifts blocks now: one user's, or every user's. Returns the
    /// blocks lifted, for the audit line. Each stays on record as released
    /// (enforced by no layer) so its session cannot raise it again.
    public func release(uid target: UInt32?, by caller: UInt32) async throws -> [HeldBlock] {
        guard caller == 0 else { throw HeldBlockError.notRoot }
        let now = clock.now()
        let (released, all) = try await store.update { blocks -> ([HeldBlock], [HeldBlock]) in
            let lifted = blocks.filter { (target == nil || $0.uid == target) && !$0.isReleased }
            blocks = blocks.map { block in lifted.contains(block) ? block.released(at: now) : block }
            return (lifted, blocks)
        }
        await enforce(all)
        for block in released {
            logger.notice("released by root", metadata: ["uid": "\(block.uid)", "session": "\(block.session)", "strict": "\(block.strict)"])
        }
        return released
    }

    /// `uid`'s blocks as they stand now, those root released included
    /// (`isReleased`): their served time brought up to now (what the
    /// store holds is as of the last checkpoint, up to a minute old, and
    /// an end computed from it would lag by as much).
    public func status(of uid: UInt32) async throws -> [HeldBlock] {
        let boot = clock.bootTime()
        return try await store.blocks().filter { $0.uid == uid }.map { held in
            var block = held
            block.advance(to: boot)
            return block
        }
    }

    /// The service's pass: brings every block's served time up to now,
    /// lifts those whose time is up, and enforces what is left (also what
    /// it restores after a restart). Returns when it must look again: the
    /// earliest end, and within a minute while a strict block is held, so
    /// its progress is written at least once a minute.
    @discardableResult
    public func pass() async throws -> Date? {
        let now = clock.now(), boot = clock.bootTime()
        let (expired, left) = try await store.update { blocks -> (Expired, [HeldBlock]) in
            var advanced = blocks
            let expired = expire(&advanced, now: now, boot: boot)
            // Served time is written when a block ends, after a reboot, and
            // once its checkpoint is old enough; not at every pass (a durable
            // write after every request). The answer uses it all the same.
            if !expired.lifted.isEmpty || !expired.allowancesEnded.isEmpty || blocks.contains(where: { Self.checkpointDue($0, at: boot) }) {
                blocks = advanced
            }
            return (expired, advanced)
        }
        let again = await enforce(left)
        for block in expired.lifted {
            logger.notice("its time is up; lifted", metadata: ["uid": "\(block.uid)", "session": "\(block.session)", "strict": "\(block.strict)"])
        }
        for block in expired.allowancesEnded {
            logger.info("allowance ended; raised", metadata: ["uid": "\(block.uid)", "session": "\(block.session)"])
        }
        let ends = left.compactMap { $0.end(at: now) } + left.compactMap { $0.allowance?.end(at: now, boot: boot) }
            + left.compactMap { $0.cycle?.nextEdge(at: now, served: $0.served, boot: $0.checkpoint) }
        let checkpoint = left.contains(where: \.holdsStrictly) ? [now.addingTimeInterval(Self.checkpointInterval)] : []
        return (ends + checkpoint + [again].compactMap { $0 }).min()
    }

    /// Whether `block`'s served time should be written now: its checkpoint
    /// is from another boot, or half a checkpoint interval old (the timer
    /// wakes the service once an interval, give or take its jitter).
    private static func checkpointDue(_ block: HeldBlock, at boot: BootTimeReading?) -> Bool {
        guard let last = block.checkpoint, let boot, last.bootID == boot.bootID else { return true }
        return boot.seconds - last.seconds >= checkpointInterval / 2
    }

    /// The most targets one block holds: one user's block must not fill the
    /// machine's hosts file (a strict block grows with every raise).
    public static let maximumTargets = 10_000

    private static func checkSize(_ targets: [Target]) throws {
        guard targets.count <= maximumTargets else {
            throw HeldBlockError.badRequest("a block holds at most \(maximumTargets) targets")
        }
    }

    /// How often a strict block's served time is written while it is held.
    public static let checkpointInterval: TimeInterval = 60

    /// What `expire` found: the blocks whose time is up (removed), and
    /// those whose allowance ran out (raised again), as they were.
    struct Expired: Sendable {
        var lifted: [HeldBlock] = []
        var allowancesEnded: [HeldBlock] = []
    }

    /// Brings the blocks' served time up to `boot`, removes those whose
    /// time is up at `now` and ends the allowances that ran out; returns those.
    @discardableResult
    func expire(_ blocks: inout [HeldBlock], now: Date, boot: BootTimeReading?) -> Expired {
        var expired = Expired()
        for index in blocks.indices {
            blocks[index].advance(to: boot)
            if let running = blocks[index].allowance, running.isOver(at: now, boot: boot) {
                expired.allowancesEnded.append(blocks[index])
                blocks[index].allowance = nil
            }
        }
        expired.lifted = blocks.filter { $0.isOver(at: now) }
        blocks.removeAll { $0.isOver(at: now) }
        return expired
    }

    /// What each layer does on this machine (`system status`), with the
    /// failure of its last attempt to enforce the blocks, if it failed.
    public func reports() async -> [LayerReport] {
        var reports: [LayerReport] = []
        for layer in layers {
            var report = await layer.report()
            report.failure = health.failure(of: layer.name)
            reports.append(report)
        }
        return reports
    }

    /// What each layer says about each of `targets` for `uid` now (`shield
    /// test`), in the order of the targets.
    public func checks(_ targets: [Target], for uid: UInt32) async -> [[LayerCheck]] {
        var checks = [[LayerCheck]](repeating: [], count: targets.count)
        // Layer by layer, each asked once for all the targets: a request
        // costs one read of each layer's state, not one a target.
        for layer in layers {
            let found = await layer.checks(targets, for: uid)
            for (index, check) in zip(checks.indices, found) { if let check { checks[index].append(check) } }
        }
        return checks
    }

    /// Every layer made to enforce `blocks` (those root released left
    /// out), the store's blocks as the change that was just made left them;
    /// returns the earliest time a layer asked to be given them again. A
    /// layer that fails is recorded, said loudly once, and given them again
    /// within `LayerHealth.retryDelay`; the others enforce all the same.
    @discardableResult
    func enforce(_ blocks: [HeldBlock]) async -> Date? {
        let now = clock.now()
        let enforced = blocks.filter { $0.isEnforced(at: now) }
        var again: Date?
        for layer in layers {
            do {
                let date = try await layer.enforce(enforced)
                if let date { again = min(again ?? date, date) }
                if let was = health.recovered(layer.name) {
                    logger.notice("a layer enforces the blocks again", metadata: ["layer": "\(layer.name)", "after": "\(was)"])
                }
            } catch {
                let retry = clock.now().addingTimeInterval(LayerHealth.retryDelay)
                again = min(again ?? retry, retry)
                if health.failed(layer.name, "\(error)") {
                    logger.error("a layer cannot enforce the blocks; the others do, and it is tried again",
                                 metadata: ["layer": "\(layer.name)", "error": "\(error)"])
                }
            }
        }
        return again
    }
}
