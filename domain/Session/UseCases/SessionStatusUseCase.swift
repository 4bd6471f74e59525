/// The active session with its elapsed, focused and remaining time, after
/// completing it if its planned end has passed.
public struct SessionStatusUseCase: Sendable {
    private let sessions: any SessionRepository
    private let clock: any Clock
    private let reconcile: ReconcileSessionUseCase

    public init(sessions: any SessionRepository, clock: any Clock, reconcile: ReconcileSessionUseCase) {
        self.sessions = sessions
        self.clock = clock
        self.reconcile = reconcile
    }

    /// Nil when no session is active.
    public func execute() async throws -> SessionStatus? {
        try await reconcile.execute()
        guard let current = try await sessions.current(), current.isActive else { return nil }
        return SessionStatus(session: current, at: clock.now(), boot: clock.bootTime())
    }
}
