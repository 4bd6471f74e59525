/// Ends the active session now, as stopped. A strict session refuses until
/// its planned end.
public struct StopSessionUseCase: Sendable {
    private let sessions: any SessionRepository
    private let clock: any Clock
    private let archiver: SessionArchiver
    private let reconcile: ReconcileSessionUseCase

    public init(sessions: any SessionRepository, history: any SessionHistory, shield: any Shield,
                clock: any Clock, tracker: any Tracker, reconcile: ReconcileSessionUseCase) {
        self.sessions = sessions
        self.clock = clock
        self.archiver = SessionArchiver(sessions: sessions, history: history, shield: shield, tracker: tracker)
        self.reconcile = reconcile
    }

    /// Returns the session as it went to history.
    public func execute() async throws -> Session {
        try await reconcile.execute()
        return try await sessions.retryingActive { current in
            let now = clock.now()
            if current.strict, let plannedEnd = current.plannedEnd, !current.isExpired(at: now, boot: clock.bootTime()) {
                throw SessionError.strict(until: plannedEnd)
            }
            let ended = current.ending(at: now, outcome: .stopped)
            return try await archiver.archive(current, as: ended) ? ended : nil
        }
    }
}
