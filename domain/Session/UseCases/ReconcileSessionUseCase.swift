import RetimeShared

/// Brings the active session up to date before a command that does not do
/// it itself (`ReconcilesSession`): the CLI root's entry to
/// `ActiveSession.reconcile`, which the session's use cases share.
public struct ReconcileSessionUseCase: Sendable {
    /// The owner of the active session, which the session's use cases reconcile through.
    public let active: ActiveSession

    public init(sessions: any SessionRepository, groups: any SessionGroupLookup, history: any SessionArchive, shields: any ShieldDirectory,
                clock: any Clock, events: SessionEventPublisher, logger: Logger) {
        active = ActiveSession(sessions: sessions, groups: groups, history: history, shields: shields, clock: clock, events: events,
                               logger: logger)
    }

    /// Returns the session this call completed, if any (`ActiveSession.Reconciled.completed`).
    @discardableResult
    public func execute(toleratingStuckBlock: Bool = true) async throws -> Session? {
        try await active.reconcile(toleratingStuckBlock: toleratingStuckBlock).completed
    }
}
