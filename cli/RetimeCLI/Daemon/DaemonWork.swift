import Domain

/// What the daemon's scheduler uses of one build of its services, and all
/// the daemon's entry resolves: its registration's factory resolves the
/// rest, so a build makes only what a pass needs (docs/performance.md,
/// "Container: what each root builds").
struct DaemonWork: Sendable {
    let logger: Logger
    /// The pass over what is due.
    let pass: RunDueEventsUseCase
    /// Brings a block left up by a crash in line with the session, at start.
    let refresh: RefreshShieldUseCase
    let clock: any RetimeShared.Clock
    /// The schedules' calendar, whose zone the log names after a change.
    let calendar: IntervalCalendar
    /// The settings in force: read at every build, so damaged settings
    /// stop the daemon at its start as they stop a command.
    let settings: Settings
    /// Keeps this device's record of what it has seen of the other
    /// devices current (`device.json`'s `seen`, at most once a minute),
    /// after each pass: a change synced in from another device wakes one.
    var sync: SyncStatusUseCase? = nil
    /// What the machine says about its user, which `PresenceService`
    /// follows: part of every build, so a reload builds what a start does.
    var presence: (any PresenceSignals)? = nil
}
