/// Told when a group's targets have changed, so that whatever was raised
/// from them follows at once: the composition root adapts the Session
/// context's refresh of the running session's block to it, without the
/// Group context knowing sessions.
///
/// The contract every adapter keeps is `GroupTargetsObserverContract`.
public protocol GroupTargetsObserver: Sendable {
    func targetsChanged(of group: GroupID) async throws
}
