import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The system service's audit trail for one user: refusals in a row are
/// one line, and the files stay bounded however many requests come.
@Suite("The capped, summarising audit trail")
struct CappedAuditTrailTests {
    let directory = TemporaryDirectory()

    @Test(arguments: AuditTrailContract.checks)
    func contract(_ check: ContractCheck<AuditTrailContract.Factory>) async throws {
        try await check.run { CappedAuditTrail(path: TemporaryDirectory().file("audit.jsonl")) }
    }

    @Test("1,000 refusals in a row are one line: how many, the first and the last; another entry starts a line of its own")
    func summarised() async throws {
        let path = directory.file("audit.jsonl")
        let trail = CappedAuditTrail(path: path)
        for second in 0..<1_000 {
            try await trail.append(AuditEntry(action: "remove-passcode", at: Date(timeIntervalSince1970: Double(second)), success: false,
                                              reason: second < 5 ? "wrongPasscode" : "lockedOut"))
        }
        try await trail.append(AuditEntry(action: "stop", at: Date(timeIntervalSince1970: 2_000), success: true))
        let entries = try await trail.entries()
        #expect(entries.count == 3, "\(entries)")
        #expect(entries.first?.count == 5 && entries.first?.until == Date(timeIntervalSince1970: 4))
        #expect(entries[1].count == 995 && entries[1].at == Date(timeIntervalSince1970: 5) && entries[1].until == Date(timeIntervalSince1970: 999))
        #expect(entries[2].action == "stop" && entries[2].count == nil)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
    }

    @Test("entries that are not repeats fill the file to its limit, then it moves aside: never more than twice the limit")
    func bounded() async throws {
        let path = directory.file("audit.jsonl")
        let trail = CappedAuditTrail(path: path, limit: 4_096)
        for index in 0..<2_000 {
            try await trail.append(AuditEntry(action: "a\(index % 7)", at: Date(timeIntervalSince1970: Double(index)), success: index % 2 == 0,
                                              reason: index % 2 == 0 ? nil : "wrongPasscode"))
        }
        let sizes = [path, path + ".1"].map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        #expect(sizes[0] <= 4_096 + 200 && sizes[1] <= 4_096 + 200, "\(sizes)")
        #expect(FileManager.default.fileExists(atPath: path + ".1"), "rotated")
        let entries = try await trail.entries()
        #expect(entries.last?.at == Date(timeIntervalSince1970: 1_999), "the newest entry is kept")
        #expect(entries.map(\.at) == entries.map(\.at).sorted(), "oldest first, across the two files")
    }
}
