import RetimeSession
import RetimeShared

/// A part of the installation whose `doctor` findings depend on the running
/// session (the shield's access: a session recorded with the `none` shield
/// while the system service is installed). It is handed the session the
/// doctor read for all its checks, so one `doctor` reads the slot once,
/// never reads it itself. Never throws: what it cannot check is a finding.
///
/// The contract every adapter keeps is `SessionHealthInspectorContract`.
public protocol SessionHealthInspector: Sendable {
    /// `running`: the session slot as the doctor read it (nil: empty, or
    /// unreadable, which the doctor's blocks check reports).
    func inspect(repairing: Bool, running: Session?) async -> [HealthCheck]
}
