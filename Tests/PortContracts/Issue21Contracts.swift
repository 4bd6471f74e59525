import Domain
import Foundation

/// The rules of `GroupTargetsObserver`: told that a group's targets
/// changed, the running session's block holds the group's targets now.
public enum GroupTargetsObserverContract {
    /// A world whose group and running session the factory makes: the
    /// observer, a way to change the group's targets behind its back, and
    /// the targets the session's block holds.
    public struct Subject: Sendable {
        public var observer: any GroupTargetsObserver
        public var group: GroupID
        public var setTargets: @Sendable ([Target]) async throws -> Void
        public var blocked: @Sendable () async throws -> [Target]?

        public init(observer: any GroupTargetsObserver, group: GroupID, setTargets: @escaping @Sendable ([Target]) async throws -> Void,
                    blocked: @escaping @Sendable () async throws -> [Target]?) {
            self.observer = observer
            self.group = group
            self.setTargets = setTargets
            self.blocked = blocked
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("after a change is told, the block holds the group's new targets, added or removed") { make in
            let subject = try await make()
            let more = ["a.example.com", "b.example.com", "app:steam"].map { try! Target(parsing: $0) }
            try await subject.setTargets(more)
            try await subject.observer.targetsChanged(of: subject.group)
            try requireEqual(Set(try await subject.blocked() ?? []), Set(more), "blocked after adding")
            try await subject.setTargets([more[1]])
            try await subject.observer.targetsChanged(of: subject.group)
            try requireEqual(try await subject.blocked(), [more[1]], "blocked after removing")
        },
    ]
}

/// The rules of `DaemonPresence`.
public enum DaemonPresenceContract {
    /// The presence, and a way to start and stop "the daemon" (whatever the
    /// adapter watches for).
    public struct Subject: Sendable {
        public var presence: any DaemonPresence
        public var start: @Sendable () throws -> Void
        public var stop: @Sendable () -> Void
        /// The pid a running daemon must be reported with.
        public var pid: Int32

        public init(presence: any DaemonPresence, start: @escaping @Sendable () throws -> Void, stop: @escaping @Sendable () -> Void, pid: Int32) {
            self.presence = presence
            self.start = start
            self.stop = stop
            self.pid = pid
        }
    }

    public typealias Factory = @Sendable () async throws -> Subject

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("none runs, then one runs (its pid, since a moment ago), then none again") { make in
            let subject = try await make()
            try require(subject.presence.running() == nil, "running() before a start")
            let before = Date()
            try subject.start()
            let running = subject.presence.running()
            try requireEqual(running?.pid, subject.pid, "pid while it runs")
            if let since = running?.since { try require(abs(since.timeIntervalSince(before)) < 60, "since \(since), started at \(before)") }
            subject.stop()
            try require(subject.presence.running() == nil, "running() after a stop")
        },
    ]
}

/// The rules of `HealthInspector`: its findings are named, say something,
/// and a repair leaves nothing it could repair behind.
public enum HealthInspectorContract {
    /// An inspector over a world the factory damaged in a way it can repair
    /// (`damaged` true), or left healthy.
    public typealias Factory = @Sendable (_ damaged: Bool) async throws -> any HealthInspector

    /// Every inspector keeps these; one that repairs something keeps
    /// `repairChecks` too.
    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("a healthy world: every finding named and explained, none an error, nothing repaired") { make in
            let checks = await (try make(false)).inspect(repairing: false)
            try require(!checks.isEmpty, "no findings at all")
            for check in checks {
                try require(!check.name.isEmpty && !check.detail.isEmpty, "an unnamed or unexplained finding: \(check)")
                try require(check.status != .error && check.status != .repaired, "\(check.name): \(check.status) on a healthy world")
            }
        },
    ]

    public static let repairChecks: [ContractCheck<Factory>] = [
        ContractCheck("a damaged world: found without repairing, repaired when asked, then healthy") { make in
            let inspector = try await make(true)
            let found = await inspector.inspect(repairing: false)
            try require(found.contains { $0.status == .error || $0.status == .warning }, "the damage went unseen: \(found)")
            try require(!found.contains { $0.status == .repaired }, "repaired without being asked: \(found)")
            let repaired = await inspector.inspect(repairing: true)
            try require(repaired.contains { $0.status == .repaired }, "nothing repaired: \(repaired)")
            let after = await inspector.inspect(repairing: false)
            try require(!after.contains { $0.status == .error }, "still an error after the repair: \(after)")
        },
    ]
}

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
