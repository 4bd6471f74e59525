import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession

/// Writes a backup (`retime export --format json`): every session of the
/// range, every group with its targets, the schedules and the settings, in
/// pieces as they are made, so that 100,000 sessions are never held as one
/// document. What it writes, the matching `HistoryImportSource` reads back.
///
/// The contract every adapter keeps is `BackupEncoderContract`.
public protocol BackupEncoder: Sendable {
    func write(_ backup: Backup, to output: ([UInt8]) throws -> Void) throws
}

/// Everything a backup holds.
public struct Backup: Sendable {
    public var sessions: [Session]
    public var groups: [Group]
    public var schedules: [Schedule]
    public var settings: [String: String]
    public var exportedAt: Date

    public init(sessions: [Session], groups: [Group], schedules: [Schedule], settings: [String: String], exportedAt: Date) {
        self.sessions = sessions
        self.groups = groups
        self.schedules = schedules
        self.settings = settings
        self.exportedAt = exportedAt
    }
}
