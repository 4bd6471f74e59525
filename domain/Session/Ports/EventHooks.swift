/// Runs the user's hook for an event (`hooks.dir/session-started`, ...).
/// Fire and forget: a hook never blocks, slows or fails the session it
/// hears about; whatever goes wrong is the adapter's to log.
///
/// The contract every adapter keeps is `EventHooksContract`.
public protocol EventHooks: Sendable {
    func run(_ event: SessionEvent)
}
