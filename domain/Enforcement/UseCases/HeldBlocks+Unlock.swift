import FoundationEssentials
import RetimeSession
import RetimeShared

/// Early ends of a strict block under its `unlock` rule (docs/shields.md,
/// "What the system service keeps with a block"): the `delay:` countdown and the
/// `typing:` proof the service checked itself.
extension HeldBlocks {
    /// Starts the countdown to lower `uid`'s strict block of `session`
    /// early, when it was raised with `unlock delay:`; asking again does
    /// not restart it. Returns when it runs out; nil when the block has no
    /// such rule (or is not held, or its time is up).
    public func requestUnlock(_ session: SessionID, for uid: UInt32) async throws -> Date? {
        let now = clock.now(), boot = clock.bootTime()
        let end = try await store.update { blocks -> Date? in
            expire(&blocks, now: now, boot: boot)
            guard let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == session && $0.holdsStrictly }),
                  case .delay(let delay)? = blocks[index].unlock else { return nil }
            if blocks[index].countdown == nil {
                blocks[index].countdown = UnlockCountdown(startedAt: now, delay: delay, servedAtStart: blocks[index].served)
                logger.info("unlock countdown started", metadata: ["uid": "\(uid)", "session": "\(session)", "delay": "\(delay)"])
            }
            return blocks[index].countdown?.end(for: blocks[index], at: now)
        }
        return end
    }

    /// How long the text typed back admits an early lowering: the time for
    /// the command that asked to carry it out.
    public static let typingProofLife: TimeInterval = 60

    /// The text `uid` typed back for `unlock typing:N` matched the text the
    /// service showed (the caller, an adapter, checked it): the next early
    /// lowering of the strict block of `session` within `typingProofLife`
    /// is admitted. Returns the characters the rule asks for; throws when
    /// the block has no such rule.
    public func proveTyping(_ session: SessionID, for uid: UInt32) async throws {
        let now = clock.now(), boot = clock.bootTime()
        try await store.update { blocks -> Void in
            expire(&blocks, now: now, boot: boot)
            guard let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == session && $0.holdsStrictly }),
                  case .typing? = blocks[index].unlock else { throw HeldBlockError.badRequest("no strict block of this session is lowered by typing") }
            blocks[index].typedAt = now
        }
        logger.info("text typed back", metadata: ["uid": "\(uid)", "session": "\(session)"])
    }

    /// How many characters `uid`'s strict block of `session` asks to be
    /// typed back; nil when its rule is not `typing:N`.
    public func typingCount(_ session: SessionID, for uid: UInt32) async throws -> Int? {
        let block = try await store.blocks().first { $0.uid == uid && $0.session == session && $0.holdsStrictly }
        guard case .typing(let count)? = block?.unlock else { return nil }
        return count
    }

    /// Cancels that countdown (`stop --withdraw`); nothing to cancel is not an error.
    public func withdrawUnlock(_ session: SessionID, for uid: UInt32) async throws {
        let now = clock.now(), boot = clock.bootTime()
        try await store.update { blocks -> Void in
            expire(&blocks, now: now, boot: boot)
            guard let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == session }), blocks[index].countdown != nil else { return }
            blocks[index].countdown = nil
            logger.info("unlock countdown withdrawn", metadata: ["uid": "\(uid)", "session": "\(session)"])
        }
    }
}
