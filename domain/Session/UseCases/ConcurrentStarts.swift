import FoundationEssentials
import RetimeShared

/// Two devices sharing a data folder that each started a session before
/// either had seen the other's: the merged slot holds one of them (the
/// later start by the hybrid clock), and the other is *unseen*
/// (`SessionRepository.unseen`). Whichever device notices first applies
/// one rule (docs/storage.md, "Two sessions started at once"), so both end
/// in history and no block is weakened by a start made elsewhere:
///
/// - A strict session is never ended by another device's start: a strict
///   unseen session takes the slot back from one that is not strict, which
///   ends then.
/// - Of two strict sessions, the one planned to end later holds (the
///   slot's, if they end together), and it takes over the other's targets
///   to its end: a second device cannot cut a strict session short, or
///   drop its targets, with a shorter strict session of its own.
/// - Otherwise the slot's session holds, and the unseen one ends (stopped)
///   at the instant the slot's session started: from then on the person
///   was focusing on the other.
/// - An unseen session still running while the slot is empty, or holds a
///   session that has ended (the session that replaced it has ended
///   since), takes the slot back.
/// - An unseen session that had ended, or whose planned end has passed
///   (on this machine's clock, or on its own device's, estimated, where
///   that one runs ahead: `SessionClocks.hasPassedItsEnd`), goes to
///   history as it ended.
/// - An unseen session history already holds has ended: it is only
///   settled (an old copy of a log, a sync tool's conflict copy restored
///   late, brought back a value of it).
/// - An unseen value of the session the slot holds is a change two devices
///   made to it at once: the later one holds, and the other is only
///   settled. Taken for a second start, it ended the session in history
///   while it ran, and the next command put it away as ended.
///
/// Each one is then settled, so no device deals with it again; two devices
/// settling one at once write one history entry (history keeps one per id).
struct ConcurrentStarts: Sendable {
    let sessions: any SessionRepository
    let history: any SessionArchive
    let shields: any ShieldDirectory
    /// Each session is judged by its own device's clock where this one
    /// disagrees with it (`SessionClocks`).
    let clocks: SessionClocks
    let logger: Logger

    /// Applies the rule to every unseen session; returns the slot as it
    /// leaves it (`slot`: as read before).
    func resolve(_ slot: Session?) async throws -> Session? {
        var slot = slot
        for contender in try await sessions.unseen() {
            let clock = clocks.clock(for: contender), now = clock.now()
            if let current = slot, current.id == contender.id {
                // Two devices changed the one session at once (a break taken
                // on one while the other had not seen it yet): the later
                // change holds, as for any field; it is the same session, no
                // second start to end.
                logger.notice("a change of the session made at the same time elsewhere gives way to the later one",
                              metadata: ["session": "\(contender.id)"])
            } else if try await history.holds(contender) {
                logger.notice("an old copy of a session that has ended is not run again", metadata: ["session": "\(contender.id)"])
                // This machine may still hold its block: it ran here until
                // another device ended it.
                try? await shields.shield(of: contender).lower(for: contender.id)
            } else if !contender.isActive || contender.isExpired(at: now, boot: clock.bootTime()) || clocks.hasPassedItsEnd(contender) {
                // (Past its end on its own device's clock, ahead of this
                // one's, it has ended there: run on here by this slower
                // clock, a strict one would stop the slot's session early.)
                let ended = contender.isActive ? contender.ending(at: contender.plannedEnd ?? now, outcome: .completed) : contender
                try await close(ended, reason: "it had ended on its device")
            } else if let current = slot, current.isActive {
                if contender.strict && (!current.strict || Self.endsLater(contender, than: current)) {
                    let holder = contender.holdingAlso(current)
                    guard try await sessions.replace(current, with: holder) else { return try await sessions.current() }
                    try await close(current.ending(at: clocks.clock(for: current).now(), outcome: .stopped),
                                    reason: "a strict session started elsewhere holds")
                    slot = holder
                } else {
                    let holder = current.holdingAlso(contender)
                    if holder != current {
                        guard try await sessions.replace(current, with: holder) else { return try await sessions.current() }
                        slot = holder
                    }
                    try await close(contender.ending(at: clocks.convert(current.startedAt, from: current, to: contender), outcome: .stopped),
                                    reason: "session \(current.id) started elsewhere at the same time holds")
                }
            } else if slot == nil {
                guard try await sessions.replace(nil, with: contender) else { return try await sessions.current() }
                logger.notice("a session started elsewhere at the same time runs again", metadata: ["session": "\(contender.id)"])
                slot = contender
            } else if let ending = slot, !ending.isActive, ending.id != contender.id {
                // The slot's session has ended (an edit of it made unseen of
                // its stop took the slot, and the stop wins): it goes to
                // history as it ended, and the running one takes the slot back.
                try await history.append(ending)
                guard try await sessions.replace(ending, with: contender) else { return try await sessions.current() }
                logger.notice("a session replaced by an edit of one that had ended runs again", metadata: ["session": "\(contender.id)"])
                slot = contender
            } else {
                try await close(contender.ending(at: now, outcome: .stopped), reason: "the slot is being emptied")
            }
            try await sessions.settle(contender)
        }
        return slot
    }

    /// Whether strict `session` is planned to end after `other` (an
    /// open-ended one never ends), by the instants as they were written:
    /// every device must pick the same one, and no two devices estimate
    /// another's clock alike (`SessionClocks`); read on each one's clock,
    /// two devices could each end the other's session.
    static func endsLater(_ session: Session, than other: Session) -> Bool {
        (session.plannedEnd ?? .distantFuture) > (other.plannedEnd ?? .distantFuture)
    }

    /// Puts an ended session in history and lowers its block here, if this
    /// device's shield holds one (a shield that refuses, as the system
    /// service does for a strict block's early end, keeps it: logged).
    private func close(_ ended: Session, reason: String) async throws {
        try await history.append(ended)
        logger.notice("ended a session started at the same time on another device: \(reason)", metadata: ["session": "\(ended.id)"])
        do { try await shields.shield(of: ended).lower(for: ended.id) } catch {
            logger.warning("the block of a session ended by another device's start stays up", metadata: ["session": "\(ended.id)", "reason": "\(error)"])
        }
    }
}
