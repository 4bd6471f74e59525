import Domain
import Foundation

/// The rules of `BackupEncoder`: what it writes, its format's reader
/// reads back whole.
public enum BackupEncoderContract {
    /// The encoder, and its format's reader.
    public struct Subject: Sendable {
        public var encoder: any BackupEncoder
        public var reader: any HistoryImportSource
        public var directory: String

        public init(encoder: any BackupEncoder, reader: any HistoryImportSource, directory: String) {
            self.encoder = encoder
            self.reader = reader
            self.directory = directory
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("sessions, groups, schedules and settings read back as written, whatever the pieces") { make in
            let subject = try await make()
            let group = Fixtures.group("Deep \"work\"", targets: ["example.com", "app:steam"])
            let sessions = (0..<300).map { Fixtures.endedSession(group: group.id, startingAt: Double($0) * 3_600) }
            let backup = Backup(sessions: sessions, groups: [group], schedules: [Fixtures.schedule("mornings", group: group.id)],
                                settings: ["shield": "hosts"], exportedAt: Fixtures.instant(1e6))
            var bytes: [UInt8] = []
            var pieces = 0
            try subject.encoder.write(backup) { bytes += $0; pieces += 1 }
            let path = subject.directory + "/backup.json"
            try require(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "writing \(path)")
            let batch = try await subject.reader.read(path)
            try requireEqual(batch.records.map(\.session), sessions, "sessions read back")
            try require(batch.records.allSatisfy { $0.groupName == group.name.rawValue && $0.groupTargets == group.targets }, "the sessions' group")
            try requireEqual(batch.backup?.schedules, backup.schedules, "schedules")
            try requireEqual(batch.backup?.settings, backup.settings, "settings")
            try require(batch.problems.isEmpty, "problems: \(batch.problems)")
        },
    ]
}
