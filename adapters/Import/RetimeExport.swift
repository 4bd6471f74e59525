import Domain
import Foundation

/// retime's own export file (`retime export --format json`), which
/// `retime import --from retime` reads back without losing anything: every
/// session field at full precision (nanosecond instants), and the groups the
/// sessions belong to, with their ids and targets.
public enum RetimeExport {
    public static let format = "retime-export"

    /// A group as exported: enough to recreate it elsewhere.
    public struct ExportedGroup: Codable, Sendable, Equatable {
        public var id: GroupID
        public var name: String
        public var targets: [Target]

        public init(id: GroupID, name: String, targets: [Target]) {
            self.id = id
            self.name = name
            self.targets = targets
        }
    }

    struct Document: Codable {
        var schema = "retime/1"
        var format = RetimeExport.format
        var exportedAt: Date
        var groups: [ExportedGroup]
        var sessions: [Session]
    }

    /// The export file's bytes: one JSON document, keys sorted.
    public static func encode(sessions: [Session], groups: [ExportedGroup], at now: Date) throws -> [UInt8] {
        Array(try StoreJSON.encoder().encode(Document(exportedAt: now, groups: groups, sessions: sessions)))
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
            document = try StoreJSON.decoder().decode(RetimeExport.Document.self, from: Data(bytes))
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
            batch.records.append(ImportBatch.Record(session: session, groupName: group?.name ?? "imported",
                                                    groupId: group?.id, groupTargets: group?.targets ?? [], line: index + 1))
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
