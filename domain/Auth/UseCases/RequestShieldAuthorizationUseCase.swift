/// `auth request`: asks the configured shield whether it can enforce, and
/// keeps the answer, as Screen Time keeps its authorization status.
public struct RequestShieldAuthorizationUseCase: Sendable {
    private let state: any AuthStateStore
    private let probe: any ShieldAuthorizationProbe

    public init(state: any AuthStateStore, probe: any ShieldAuthorizationProbe) {
        self.state = state
        self.probe = probe
    }

    public func execute() async throws -> ShieldAuthorization {
        let answer = await probe.authorization()
        try await state.update { $0.shieldAuthorization = answer }
        return answer
    }
}
