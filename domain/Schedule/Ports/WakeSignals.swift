import FoundationEssentials

/// What wakes the daemon between passes: the deadline it sleeps until, a
/// change of the data (a CLI command), of the wall clock or of the time
/// zone, or a signal. Nothing wakes it periodically. The daemon's loop
/// waits only through this port, so a test drives the whole loop with a
/// scripted source on the manual clock.
///
/// The contract every adapter keeps is `WakeSignalsContract`.
public protocol WakeSignals: Sendable {
    /// Sleeps until `deadline` (forever when nil) or something else wakes it.
    func wait(until deadline: Date?) async -> WakeReason
    /// Whether a change of the system's time zone wakes it.
    var followsTimeZone: Bool { get }
}

/// Why the daemon woke up.
public enum WakeReason: Sendable, Equatable {
    /// The deadline it slept until has come.
    case deadline
    /// The wall clock was set (by hand, NTP, or a resume from suspend).
    case clockChanged
    /// Another process changed the data (a CLI command).
    case dataChanged
    /// The system's time zone was changed (`/etc/localtime` replaced, as
    /// `timedatectl set-timezone` does): local times now mean other instants.
    case timeZoneChanged
    case signal(Int32)
}
