import FoundationEssentials
import RetimeGroup
import RetimeShared

/// `retime allow GROUP [DURATION]` and `retime allow --cancel`: lifts the
/// block of the running session's group for a while, spending that much of
/// the group's allowance today, and raises it again on request; what was
/// not used is given back. The block comes back at the allowance's end by
/// reconcile (`ActiveSession+Allowance`): the daemon on the second, any
/// command that notices later.
public struct AllowUseCase: Sendable {
    private let sessions: any SessionRepository
    private let groups: any SessionGroupLookup
    private let active: ActiveSession
    private let book: AllowanceBook

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, active: ActiveSession, book: AllowanceBook) {
        self.sessions = sessions
        self.groups = groups
        self.active = active
        self.book = book
    }

    /// What `allow` did: the allowance running, its group, and what is left today.
    public struct Receipt: Sendable {
        public let session: Session
        public let allowance: RunningAllowance
        public let groupName: String
        public let leftToday: TimeInterval
    }

    /// Lifts `groupName`'s block for `length` (nil: what is left today; more
    /// than is left: what is left).
    public func allow(_ groupName: String, for length: TimeInterval?) async throws -> Receipt {
        if let length, !(length >= 1 && length <= 86_400) {
            throw AllowanceError.invalidLength("give a duration from 1s to 24h")
        }
        guard let group = try await groups.blockList(named: groupName) else { throw SessionError.groupNotFound(name: groupName) }
        let reconciled = try await active.reconcile()
        // A scheduled session may carry its own allowance for the group.
        let slot = try await active.current(after: reconciled)
        if group.allowance == nil, slot.flatMap({ $0.isActive && $0.groupId == group.groupId ? $0.dailyAllowance : nil }) == nil {
            throw AllowanceError.none(group: group.name)
        }
        let (before, after, running) = try await sessions.retryingActive(known: .some(slot)) {
            current -> (Session, Session, RunningAllowance)? in
            guard current.groupId == group.groupId else { throw SessionError.notActive }
            let clock = active.clocks.clock(for: current)
            guard let allowance = current.dailyAllowance ?? group.allowance else { throw AllowanceError.none(group: group.name) }
            if let running = current.allowance { throw AllowanceError.alreadyRunning(until: running.end(at: clock.now(), boot: clock.bootTime())) }
            let standing = try await book.standing(of: group.groupId, allowance: allowance)
            guard standing.left >= 1 else { throw AllowanceError.spent(group: group.name) }
            let granted = RunningAllowance(at: clock.now(), boot: clock.bootTime(), length: min(length ?? standing.left, standing.left),
                                           day: standing.day, device: try book.devices.thisDevice())
            // Spent before it runs: a crash between the two loses the
            // person some minutes, never gives them free ones.
            try await book.spend(granted.length, of: group.groupId, on: granted.day)
            let next = try current.allowing(granted)
            guard try await sessions.replace(current, with: next) else {
                try await book.spend(-granted.length, of: group.groupId, on: granted.day)
                return nil
            }
            return (current, next, granted)
        }
        do {
            let shield = try active.shields.shield(of: after)
            // A shield that counts allowances itself (the system service)
            // decides by its own count, and raises the block at the end.
            let daily = after.dailyAllowance ?? group.allowance
            try await shield.guarded { _ = try await $0.allow(for: after.id, length: running.length, daily: daily) }
        } catch {
            // A block that stays up is no allowance: withdraw it and give it back.
            if try await sessions.replace(after, with: before) { try? await book.spend(-running.length, of: group.groupId, on: running.day) }
            throw error
        }
        active.events.record(TrackedEvent(name: "allowance-started", at: running.startedAt, properties: [
            "sessionId": .string(after.id.description), "groupId": .string(group.groupId.description),
            "seconds": .double(running.length), "plannedEnd": .date(running.plannedEnd),
        ]))
        active.logger.info("allowance started", metadata: ["session": "\(after.id)", "until": "\(Timestamp.format(running.plannedEnd))"])
        let left = try await book.standing(of: group.groupId, allowance: after.dailyAllowance ?? group.allowance ?? 0).left
        return Receipt(session: after, allowance: running, groupName: group.name, leftToday: left)
    }

    /// Raises the block now; what was not used is given back. Returns the
    /// time given back.
    public func cancel() async throws -> TimeInterval {
        let reconciled = try await active.reconcile()
        let (_, after, ended) = try await sessions.retryingActive(known: reconciled.slot) { current -> (Session, Session, RunningAllowance)? in
            guard let running = current.allowance else { throw AllowanceError.notRunning }
            let next = current.endingAllowance()
            return try await sessions.replace(current, with: next) ? (current, next, running) : nil
        }
        let clock = active.clocks.clock(for: after)
        let unused = ended.length - ended.used(at: clock.now(), boot: clock.bootTime())
        if unused > 0 { try await book.spend(-unused, of: after.groupId, on: ended.day) }
        _ = try await active.raiseIfDown(after)
        active.events.record(TrackedEvent(name: "allowance-ended", at: clock.now(), properties: [
            "sessionId": .string(after.id.description), "groupId": .string(after.groupId.description), "cancelled": .bool(true),
        ]))
        return unused
    }
}
extension AllowUseCase: ReconcilesSession {}
