import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The export is written in pieces (issue 20: 100,000 sessions in under
/// 100 MB); its bytes must stay those Foundation's encoder wrote, so that
/// every export made before reads and compares the same.
@Suite("The export file written in pieces")
struct RetimeExportWriterTests {
    /// The document as the encoder wrote it whole before.
    private struct Whole: Encodable {
        var schema = "retime/1"
        var format = RetimeExport.format
        var exportedAt: Date
        var groups: [RetimeExport.ExportedGroup]
        var sessions: [Session]
        var schedules: [Schedule]?
        var settings: [String: String]?
    }

    static let groups = [
        RetimeExport.ExportedGroup(id: GroupID(), name: "Deep \"work\" ü", targets: ["slack.com", "app:steam"].map { try! Target(parsing: $0) },
                                   createdAt: Fixtures.instant(1.25), updatedAt: nil),
        RetimeExport.ExportedGroup(id: GroupID(), name: "empty", targets: []),
    ]

    @Test("the pieces, joined, are byte for byte the encoder's document, at any piece size", arguments: [1, 64, 1 << 16])
    func sameBytes(chunkSize: Int) throws {
        let sessions = SessionLineEncoderTests.sessions()
        let schedules = [Fixtures.schedule("mornings"), Fixtures.schedule("late / night", from: "22:00", to: "01:00")]
        let settings = ["shield": "hosts", "notify": "off", "log.level": "debug \\ \"x\""]
        let expected = Array(try StoreJSON.encoder().encode(Whole(exportedAt: Fixtures.instant(99.5), groups: Self.groups, sessions: sessions,
                                                                  schedules: schedules, settings: settings)))
        var pieces: [[UInt8]] = []
        try RetimeExport.write(sessions: sessions, groups: Self.groups, schedules: schedules, settings: settings, at: Fixtures.instant(99.5),
                               chunkSize: chunkSize) { pieces.append($0) }
        #expect(pieces.joined().elementsEqual(expected))
        if chunkSize == 1 { #expect(pieces.count == sessions.count + 1) }
        #expect(try RetimeExport.encode(sessions: sessions, groups: Self.groups, schedules: schedules, settings: settings,
                                        at: Fixtures.instant(99.5)) == expected)
    }

    @Test("with no sessions, groups, schedules or settings, still the encoder's document")
    func empty() throws {
        let expected = Array(try StoreJSON.encoder().encode(Whole(exportedAt: Fixtures.epoch, groups: [], sessions: [], schedules: [], settings: [:])))
        #expect(try RetimeExport.encode(sessions: [], groups: [], at: Fixtures.epoch) == expected)
    }
}
