import FoundationEssentials

/// What the machine says about the person at it: asleep (suspended), the
/// screen locked, idle. The daemon follows it to record a session's away
/// stretches (semantics: suspended time never counts as focused; idle or
/// locked time longer than `away.threshold` is excluded). On Linux the
/// sources are logind (`PrepareForSleep`, the user's session `Lock`/`Unlock`
/// and `IdleHint`) and the desktop's own idle time (GNOME's idle monitor,
/// the Wayland compositor's ext-idle-notify or kwin idle), heard as one; a
/// test drives a scripted source.
///
/// The contract every adapter keeps is `PresenceSignalsContract`.
public protocol PresenceSignals: Sendable {
    /// Whether this machine has the source, and if not, why (for `doctor`).
    func availability() async -> PresenceAvailability

    /// Every change from now on, in the order they happened, until the
    /// consuming task is cancelled. The first element is the state at the
    /// moment of the call. Finishes at once when the source is unavailable,
    /// and when a source that was followed goes away (its bus lost): a
    /// caller that wants it back calls again, later (the daemon does, with
    /// `ReconnectBackoff`).
    func changes() -> AsyncStream<PresenceChange>
}

/// One change of what the machine says about its user.
public struct PresenceChange: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// At the machine: not idle, not locked, not asleep.
        case present
        /// No input for a while (logind `IdleHint`).
        case idle
        /// The session's screen is locked.
        case locked
        /// The machine is about to suspend or hibernate.
        case asleep
    }

    public var state: State
    /// When the state began on the wall clock. For `idle` this is when input
    /// stopped (logind `IdleSinceHint`; a notification's time less its
    /// timeout), which is earlier than the signal.
    public var since: Date

    public init(state: State, since: Date) {
        self.state = state
        self.since = since
    }
}

/// Whether a presence source works here.
public enum PresenceAvailability: Sendable, Hashable {
    case available(source: String)
    case unavailable(reason: String)
}
