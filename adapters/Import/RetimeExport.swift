#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// retime's own export file (`retime export --format json`), a whole
/// backup that `retime import --from retime` reads back without losing
/// anything: every session field at full precision (nanosecond instants),
/// as amended; every group with its id, targets and dates; the schedules;
/// the settings. Never the passcode (it is not a setting).
public enum RetimeExport {
    public static let format = "retime-export"

    /// A group as exported: enough to recreate it elsewhere.
    public struct ExportedGroup: Codable, Sendable, Equatable {
        public var id: GroupID
        public var name: String
        public var targets: [Target]
        /// Absent from exports made before backups kept them.
        public var createdAt: Date?
        public var updatedAt: Date?

        public init(id: GroupID, name: String, targets: [Target], createdAt: Date? = nil, updatedAt: Date? = nil) {
            self.id = id
            self.name = name
            self.targets = targets
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    struct Document: Codable {
        static let schema = "retime/1"
        var schema = Document.schema
        var format = RetimeExport.format
        var exportedAt: Date
        var groups: [ExportedGroup]
        var sessions: [Session]
        /// Absent from exports made before exports were backups.
        var schedules: [Schedule]?
        var settings: [String: String]?
    }

    /// The export file's bytes: one JSON document, keys sorted.
    public static func encode(sessions: [Session], groups: [ExportedGroup], schedules: [Schedule] = [], settings: [String: String] = [:],
                              at now: Date) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try write(sessions: sessions, groups: groups, schedules: schedules, settings: settings, at: now) { bytes += $0 }
        return bytes
    }

    /// The same bytes as `encode`, handed to `output` in pieces of about
    /// `chunkSize` as they are made: exporting 100,000 sessions holds one
    /// piece, not the document (Foundation's encoder held 237 MB). The
    /// sessions are written as history lines are (`SessionLineEncoder`,
    /// held to JSONEncoder's output), the rest by the store's encoder; the
    /// members in sorted order, as `.sortedKeys` writes them.
    public static func write(sessions: [Session], groups: [ExportedGroup], schedules: [Schedule] = [], settings: [String: String] = [:],
                             at now: Date, chunkSize: Int = 1 << 16, to output: ([UInt8]) throws -> Void) throws {
        func json<T: Encodable>(_ value: T) throws -> [UInt8] { try JSONText.compact(value) }
        var buffer = Array("{\"exportedAt\":".utf8) + (try json(Timestamp.format(now)))
        buffer += Array(",\"format\":".utf8) + (try json(format))
        buffer += Array(",\"groups\":".utf8) + (try json(groups))
        buffer += Array(",\"schedules\":".utf8) + (try json(schedules))
        buffer += Array(",\"schema\":".utf8) + (try json(Document.schema))
        buffer += Array(",\"sessions\":[".utf8)
        buffer.reserveCapacity(chunkSize + 1_024)
        for (index, session) in sessions.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            SessionLineEncoder.append(session, to: &buffer)
            if buffer.count >= chunkSize {
                try output(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer += Array("],\"settings\":".utf8) + (try json(settings)) + [UInt8(ascii: "}")]
        try output(buffer)
    }
}

/// The `BackupEncoder` of retime's own export file.
public struct RetimeExportEncoder: BackupEncoder {
    public init() {}

    public func write(_ backup: Backup, to output: ([UInt8]) throws -> Void) throws {
        let groups = backup.groups.map {
            RetimeExport.ExportedGroup(id: $0.id, name: $0.name.rawValue, targets: $0.targets, createdAt: $0.createdAt, updatedAt: $0.updatedAt)
        }
        try RetimeExport.write(sessions: backup.sessions, groups: groups, schedules: backup.schedules, settings: backup.settings,
                               at: backup.exportedAt, to: output)
        try output([UInt8(ascii: "\n")])
    }
}

/// Reads a retime export back: sessions keep their ids, instants and every
/// field; their groups are matched by name, or recreated with their ids and targets.
public struct RetimeExportSource: HistoryImportSource {
    public init() {}

    public func read(_ path: String) async throws -> ImportBatch {
        let bytes = try ImportError.bytes(of: path)
        let document: RetimeExport.Document
        do {
            document = try JSONValueDecoder().decode(RetimeExport.Document.self, from: try JSONText.parse(bytes))
        } catch {
            throw ImportError.notTheFormat(path: path, expected: "a retime export", reason: Self.reason(error))
        }
        guard document.format == RetimeExport.format else {
            throw ImportError.notTheFormat(path: path, expected: "a retime export", reason: "its format is '\(document.format)'")
        }
        let groups = Dictionary(document.groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var batch = ImportBatch()
        for (index, session) in document.sessions.enumerated() {
            guard !session.isActive, session.endedAt != nil else {
                batch.problems.append(.init(line: index + 1, message: "session \(session.id) has not ended"))
                continue
            }
            let group = groups[session.groupId]
            // A session of a group deleted before the export keeps its
            // group id and name: no group named "imported" is made for it.
            batch.records.append(ImportBatch.Record(session: session, groupName: group?.name ?? session.groupName ?? "(deleted group)",
                                                    groupId: group?.id, groupTargets: group?.targets ?? [], line: index + 1,
                                                    groupDeleted: group == nil))
        }
        if document.schedules != nil || document.settings != nil {
            batch.backup = ImportBatch.Backup(
                groups: document.groups.map { ImportGroupRequest(name: $0.name, preferredId: $0.id, targets: $0.targets, createdAt: $0.createdAt,
                                                           updatedAt: $0.updatedAt) },
                schedules: document.schedules ?? [], settings: document.settings ?? [:])
        }
        return batch
    }

    /// Why a file is not an export, in the file's terms: where in it, and
    /// what is missing or wrong, not the decoder's type names.
    private static func reason(_ error: any Error) -> String {
        func place(_ path: [any CodingKey]) -> String {
            String(path.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().drop { (character: Character) in character == "." })
        }
        switch error {
        case is JSONText.Malformed:
            return "it is not JSON"
        case DecodingError.keyNotFound(let key, let context):
            return "'\(place(context.codingPath + [key]))' is missing"
        case DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty:
            return "its top level is not a JSON object like the one 'retime export --format json' writes"
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            return "it is not JSON"
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context):
            return "\(place(context.codingPath)): \(context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
