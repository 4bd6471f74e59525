import Domain

/// Keeps the running session's block equal to its group's targets: told
/// that a group's targets changed, it refreshes the block (the Session
/// context's `RefreshShieldUseCase`).
public struct ShieldRefreshOnTargetChange: GroupTargetsObserver {
    private let refresh: RefreshShieldUseCase

    public init(refresh: RefreshShieldUseCase) {
        self.refresh = refresh
    }

    public func targetsChanged(of group: GroupID) async throws {
        try await refresh.execute()
    }
}
