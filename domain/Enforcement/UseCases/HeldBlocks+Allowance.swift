import FoundationEssentials
import RetimeGroup
import RetimeSession
import RetimeShared

/// Allowances the service counts itself (docs/allowances.md, "With the
/// system service"): what each user spent per group and local day is kept
/// in the service's state, so the user's files change nothing.
extension HeldBlocks {
    /// What `allow` granted: the block is down until `until`; `left` is what
    /// is left of the day's allowance after it.
    public struct AllowanceGrant: Sendable, Equatable {
        public let until: Date
        public let length: TimeInterval
        public let left: TimeInterval
    }

    /// The device name the service's spending is kept under, in its own ledger.
    static let ledgerDevice = "system-service"

    /// Lowers `uid`'s block of `session` for an allowance the service
    /// counts itself (strict or not): `length`, or what is left today,
    /// whichever is less, of the daily allowance the block was raised with
    /// (a block that is not strict takes `daily`, its user's as set now).
    /// What was spent is counted per user, group and local day of the
    /// machine, in the service's state: the user's files change nothing.
    /// The service raises the block again at the allowance's end.
    public func allow(_ session: SessionID, for uid: UInt32, length: TimeInterval?, daily: TimeInterval?) async throws -> AllowanceGrant {
        guard let allowances else { throw HeldBlockError.noAllowance }
        if let length, !(length >= 1 && length <= 86_400) { throw HeldBlockError.badRequest("an allowance lasts from 1 second to 24 hours") }
        let now = clock.now(), boot = clock.bootTime()
        let held = try await store.update { blocks -> HeldBlock? in
            expire(&blocks, now: now, boot: boot)
            return blocks.first { $0.uid == uid && $0.session == session && !$0.isReleased && $0.loweredAt == nil }
        }
        guard let held else { throw HeldBlockError.badRequest("no block of this session is held") }
        if let running = held.allowance { throw HeldBlockError.allowanceRunning(until: running.end(at: now, boot: boot)) }
        let allowance = held.strict ? held.dailyAllowance : (daily ?? held.dailyAllowance)
        guard let allowance, let group = held.group else { throw HeldBlockError.noAllowance }
        let ledger = allowances(uid)
        let spending = try await ledger.spending(of: group)
        let last = spending.filter { $0.device == Self.ledgerDevice }.max { $0.at < $1.at }
        let day = AllowanceDay.today(at: now, boot: boot, lastSpending: last, in: zone())
        let left = max(0, allowance - spending.spent(on: day))
        guard left >= 1 else { throw HeldBlockError.allowanceSpent }
        let running = RunningAllowance(at: now, boot: boot, length: min(length ?? left, left), day: day, device: Self.ledgerDevice)
        // Spent before the block comes down: a crash between the two costs
        // the user minutes, never gives them free ones.
        try await ledger.spend(running.length, of: group, by: Self.ledgerDevice, on: day, at: now, boot: boot)
        let all = try await store.update { blocks -> [HeldBlock]? in
            guard let index = blocks.firstIndex(where: { $0.uid == uid && $0.session == session && !$0.isReleased && $0.loweredAt == nil }),
                  blocks[index].allowance == nil else { return nil }
            if !blocks[index].strict { blocks[index].dailyAllowance = allowance }
            blocks[index].allowance = running
            return blocks
        }
        guard let all else {
            try await ledger.spend(-running.length, of: group, by: Self.ledgerDevice, on: day, at: now, boot: boot)
            throw HeldBlockError.badRequest("the block changed meanwhile; ask again")
        }
        await enforce(all)
        logger.info("allowance started", metadata: ["uid": "\(uid)", "session": "\(session)", "seconds": "\(running.length)"])
        return AllowanceGrant(until: running.end(at: now, boot: boot), length: running.length, left: left - running.length)
    }

    /// Gives back what the allowances of `ended` blocks did not use (ended
    /// early, by a raise or a lowering); one that ran out used it all.
    func giveBack(_ ended: [HeldBlock], at now: Date, boot: BootTimeReading?) async {
        guard let allowances else { return }
        for block in ended {
            guard let running = block.allowance, let group = block.group else { continue }
            let unused = running.length - running.used(at: now, boot: boot)
            guard unused > 0 else { continue }
            do {
                try await allowances(block.uid).spend(-unused, of: group, by: Self.ledgerDevice, on: running.day, at: now, boot: boot)
            } catch {
                logger.error("an allowance's unused time could not be given back", metadata: ["uid": "\(block.uid)", "error": "\(error)"])
            }
        }
    }
}
