import RetimeShared

/// `auth request`: asks the configured shield whether it can enforce, and
/// keeps the answer, as Screen Time keeps its authorization status.
public struct RequestShieldAuthorizationUseCase: Sendable {
    private let state: any AuthStateStore
    private let probe: any ShieldAuthorizationProbe
    private let status: AuthStatusUseCase

    public init(state: any AuthStateStore, probe: any ShieldAuthorizationProbe, clock: any Clock) {
        self.state = state
        self.probe = probe
        self.status = AuthStatusUseCase(state: state, clock: clock)
    }

    /// The Auth context's state with the answer kept
    /// (`shieldAuthorization`).
    public func execute() async throws -> AuthStatus {
        let answer = await probe.authorization()
        try await state.update { $0.shieldAuthorization = answer }
        return try await status.execute()
    }
}
