import FoundationEssentials
import RetimeShared

/// The one way a session ends: marked ended in the slot (the compare-and-swap
/// that makes exactly one process the winner), appended to history, its
/// block lifted, then removed from the slot. Every step is safe to repeat, so
/// a process that finds an ended session left in the slot (by a crash, by a
/// shield that failed, or by a winner still at work) finishes the job without
/// doubling anything: history appends are idempotent, lowering is
/// owner-checked, and only the process that empties the slot reports the
/// ending.
struct SessionArchiver: Sendable {
    let sessions: any SessionRepository
    let history: any SessionArchive
    let shields: any ShieldDirectory
    let events: SessionEventPublisher
    /// The group's name as the session ends: one renamed while the session
    /// ran is recorded under its new name (nil: the name it started with).
    var groups: (any SessionGroupLookup)? = nil

    /// Moves `current` to history as `ended`; false if another process
    /// changed the session first (it then owns the ending).
    func archive(_ current: Session, as ended: Session, passcode: Passcode? = nil, typed: Int? = nil) async throws -> Bool {
        try await archiving(current, as: ended, passcode: passcode, typed: typed).archived
    }

    /// The same, also saying whether this call emptied the slot (false when
    /// another process changed it first, or finishes the ending).
    func archiving(_ current: Session, as ended: Session, passcode: Passcode? = nil,
                   typed: Int? = nil) async throws -> (archived: Bool, emptied: Bool) {
        guard try await sessions.replace(current, with: ended) else { return (false, false) }
        return (true, try await finish(ended, passcode: passcode, typed: typed))
    }

    /// Lowers `current`'s block and empties the slot of it, writing no
    /// history: one history already holds (it ended elsewhere). Returns
    /// whether this call emptied the slot.
    func discard(_ current: Session) async throws -> Bool {
        do { try await shields.shield(of: current).lower(for: current.id) } catch {
            throw SessionError.blockNotLifted((error as? SessionError)?.description ?? String(describing: error))
        }
        return try await sessions.replace(current, with: nil)
    }

    /// Completes the archival of a session already marked ended. Throws
    /// `blockNotLifted` when the shield fails: the session is in history by
    /// then, and stays in the slot until a later finisher lifts its block.
    /// Returns whether this call emptied the slot.
    @discardableResult
    func finish(_ ended: Session, passcode: Passcode? = nil, typed: Int? = nil) async throws -> Bool {
        // A history that cannot take the session (a segment replaced by a
        // directory or a FIFO) does not keep its block up: the ending is
        // decided, and the ended session stays in the slot until history
        // takes it, so nothing is lost.
        var unwritten: (any Error)?
        let now = (try? await groups?.groupName(id: ended.groupId)) ?? nil
        let named = now.flatMap { $0 == ended.groupName ? nil : ended.renamed($0) } ?? ended
        do { try await history.append(named) } catch { unwritten = error }
        // Lift the block before emptying the slot: the ended session left in
        // the slot is what makes the next finisher try again, so a block the
        // shield could not lift (a full disk, a hosts file made read-only) is
        // never forgotten, nor outlives a finisher that died here.
        do { try await shields.shield(of: ended).lower(for: ended.id, passcode: passcode, typed: typed) } catch {
            throw SessionError.blockNotLifted((error as? SessionError)?.description ?? String(describing: error))
        }
        if let unwritten { throw SessionError.historyNotWritten((unwritten as? any RetimeError)?.description ?? "\(unwritten)") }
        let emptied = try await sessions.replace(ended, with: nil)
        if emptied { await events.session(.sessionEnded, ended, at: ended.endedAt ?? ended.startedAt) }
        return emptied
    }
}

extension Shield {
    /// Runs a shield operation, reporting any failure as `SessionError.shieldFailed`.
    func guarded(_ operation: (Self) async throws -> Void) async throws(SessionError) {
        do { try await operation(self) } catch let error as SessionError { throw error } catch {
            throw .shieldFailed(String(describing: error))
        }
    }
}

extension SessionRepository {
    /// Runs `attempt` on the active session until it lands: `attempt` returns
    /// nil when its compare-and-swap lost to another process, and is then
    /// retried on the fresh state. Throws `notActive` when there is none.
    /// `known`: the slot as this command's reconcile left it, for the first
    /// attempt (`.none`: read it).
    func retryingActive<Result>(known: Session?? = .none, _ attempt: (Session) async throws -> Result?) async throws -> Result {
        for round in 0..<5 {
            let slot: Session?
            if round == 0, case .some(let known) = known { slot = known } else { slot = try await current() }
            guard let current = slot, current.isActive else { throw SessionError.notActive }
            if let result = try await attempt(current) { return result }
        }
        throw SessionError.conflict
    }
}

extension TrackedEvent {
    /// A session lifecycle event, named as the hooks are.
    static func sessionEvent(_ name: String, _ session: Session, at instant: Date) -> TrackedEvent {
        var properties: [String: TrackedValue] = [
            "sessionId": .string(session.id.description),
            "groupId": .string(session.groupId.description),
            "origin": .string(session.origin.description),
            "outcome": .string(session.outcome.rawValue),
            "strict": .bool(session.strict),
        ]
        if let plannedEnd = session.plannedEnd { properties["plannedEnd"] = .date(plannedEnd) }
        return TrackedEvent(name: name, at: instant, properties: properties)
    }
}

extension Session {
    /// The same session under another group name, everything else kept.
    func renamed(_ name: String) -> Session {
        Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome,
                strict: strict, breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline, shield: shield,
                groupName: name, device: device, cycle: cycle, startReading: startReading, away: away)
    }
}
