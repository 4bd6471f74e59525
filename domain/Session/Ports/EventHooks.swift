/// Runs the user's hook for an event (`hooks.dir/session-started`, ...).
/// Fire and forget: a hook never blocks, slows or fails the session it
/// hears about; whatever goes wrong is the adapter's to log.
///
/// The contract every adapter keeps is `EventHooksContract`.
public protocol EventHooks: Sendable {
    func run(_ event: SessionEvent)
    /// Whether a hook would run for events of `kind`: the group's targets
    /// are read for an event only when something hears them.
    func listens(to kind: SessionEvent.Kind) -> Bool
}
