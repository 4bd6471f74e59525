import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("JSON-lines audit trail")
struct AuditTrailFileTests {
    let directory = TemporaryDirectory()

    @Test("a line torn by a crash is skipped and the next entry starts its own line")
    func tornLine() async throws {
        let path = directory.file("audit.jsonl")
        let trail = JSONLinesAuditTrail(path: path)
        try await trail.append(AuditEntry(action: "stop", at: Date(timeIntervalSince1970: 1), success: false, reason: "wrongPasscode"))
        try appendRaw(#"{"action":"sto"#, to: path)
        try await trail.append(AuditEntry(action: "pause", at: Date(timeIntervalSince1970: 2), success: true))
        #expect(try await trail.entries().map(\.action) == ["stop", "pause"])
    }

    @Test("each entry is the line JSONEncoder wrote for it, byte for byte")
    func lineFormat() async throws {
        let path = directory.file("audit.jsonl")
        let entries = [
            AuditEntry(action: "stop", at: Date(timeIntervalSince1970: 1_700_000_000.25), success: false, reason: "wrongPasscode"),
            AuditEntry(action: "group.unblock \"x\" / é", at: Date(timeIntervalSince1970: 0), success: true),
        ]
        for entry in entries { try await JSONLinesAuditTrail(path: path).append(entry) }
        let expected = try entries.map { String(decoding: try StoreJSON.encoder().encode($0), as: UTF8.self) + "\n" }.joined()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }

    @Test("the file is private to its owner")
    func mode() async throws {
        let path = directory.file("audit.jsonl")
        try await JSONLinesAuditTrail(path: path).append(AuditEntry(action: "stop", at: Date(), success: true))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
