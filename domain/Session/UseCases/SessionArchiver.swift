import Foundation

/// The one way a session ends: marked ended in the slot (the compare-and-swap
/// that makes exactly one process the winner), appended to history, removed
/// from the slot, then its block lifted. Every step is safe to repeat, so a
/// process that finds an ended session left in the slot (by a crash, or by a
/// winner still at work) finishes the job without doubling anything: history
/// appends are idempotent, and only the process that empties the slot
/// reports the ending.
struct SessionArchiver: Sendable {
    let sessions: any SessionRepository
    let history: any SessionHistory
    let shield: any Shield
    let events: SessionEventPublisher

    /// Moves `current` to history as `ended`; false if another process
    /// changed the session first (it then owns the ending).
    func archive(_ current: Session, as ended: Session) async throws -> Bool {
        guard try await sessions.replace(current, with: ended) else { return false }
        try await finish(ended)
        return true
    }

    /// Completes the archival of a session already marked ended.
    func finish(_ ended: Session) async throws {
        try await history.append(ended)
        let emptied = try await sessions.replace(ended, with: nil)
        if emptied { await events.session(.sessionEnded, ended, at: ended.endedAt ?? ended.startedAt) }
        // Every finisher lowers: it is idempotent and owner-checked, and the
        // block must not outlive a finisher that died after emptying the slot.
        try await shield.guarded { try await $0.lower(for: ended.id) }
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
    func retryingActive<Result>(_ attempt: (Session) async throws -> Result?) async throws -> Result {
        for _ in 0..<5 {
            guard let current = try await current(), current.isActive else { throw SessionError.notActive }
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
