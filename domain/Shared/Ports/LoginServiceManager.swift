import FoundationEssentials

/// The user's service manager, which runs the daemon now and at every login
/// from the definition `retime daemon install` writes (a systemd user unit):
/// install has it load, enable and start the definition; uninstall has it
/// stop and disable it while the file is still there, then forget it.
///
/// The contract every adapter keeps is `LoginServiceManagerContract`.
public protocol LoginServiceManager: Sendable {
    /// Loads the definition at `path`, starts it now and at every login,
    /// and says whether it runs.
    func enable(_ path: String) -> LoginServiceOutcome
    /// Stops the service of the definition at `path` and no longer starts
    /// it at login; the file is still there (older managers cannot disable
    /// a unit whose file is gone).
    func disable(_ path: String) -> LoginServiceOutcome
    /// After the definition at `path` was removed: the manager forgets it.
    func forget(_ path: String) -> LoginServiceOutcome
}

/// What the manager did, or why it did nothing.
public enum LoginServiceOutcome: Sendable, Equatable {
    /// Done; `state` is what the manager says of the service now (systemd's
    /// `is-active`: `active` after an enable, `inactive` after a disable).
    case done(state: String)
    /// No manager answers for this user here (no user session, none
    /// installed): nothing was changed; `manually` is how to do it by hand.
    case unavailable(reason: String, manually: String)
    /// The manager answered and refused, or the service did not stay up:
    /// what it said, and how to look or retry.
    case failed(reason: String, manually: String)
}
