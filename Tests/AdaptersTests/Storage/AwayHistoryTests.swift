import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// A session's away stretches in history (issue 33): written as the
/// store's JSONEncoder writes them, read back whole, counted out of the
/// spans reports read; a line from before away time reads with none.
@Suite("Away stretches in history")
struct AwayHistoryTests {
    static func awaySession() -> Session {
        let start = Fixtures.instant(0)
        return Session(id: SessionID(), groupId: GroupID(), startedAt: start, plannedEnd: start + 7_200, endedAt: start + 7_200,
                       outcome: .completed, strict: false, breaks: [], tags: [], note: nil, origin: .manual, groupName: "work",
                       away: [AwayStretch(reason: .locked, start: start + 600, end: start + 1_500, threshold: 300),
                              AwayStretch(reason: .idle, start: start + 2_000, end: start + 2_400, threshold: 300.5, kept: true),
                              AwayStretch(reason: .asleep, start: start + 3_600, end: start + 5_400)])
    }

    func history(_ directory: TemporaryDirectory) -> JSONLinesSessionHistory {
        JSONLinesSessionHistory(directory: directory.path, deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
    }

    @Test("the line equals JSONEncoder's, reads back equal, and its span leaves the counted stretches out of focused time")
    func roundTrip() async throws {
        let directory = TemporaryDirectory()
        let history = history(directory)
        let session = Self.awaySession()
        try await history.append(session)
        let file = try FileManager.default.contentsOfDirectory(atPath: directory.file("d")).map { directory.file("d/" + $0) }[0]
        let line = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(line == String(decoding: try StoreJSON.encoder().encode(session), as: UTF8.self))
        #expect(try await history.sessions(matching: .all) == [session])
        let span = try #require(try await history.spans(matching: .all).first)
        #expect(span.away.count == 2)
        let report = ReportBuilder(grouping: .day, timeZone: .utc, groupNames: [:]).build([span], since: nil, until: nil)
        #expect(report.totalFocusedSeconds == 7_200 - 900 - 1_800)
        #expect(session.focused(at: session.endedAt!) == 7_200 - 900 - 1_800)
    }

    @Test("a line written before away time reads with no stretches and its whole time focused")
    func olderLine() async throws {
        let directory = TemporaryDirectory()
        let history = history(directory)
        let old = Fixtures.endedSession(startingAt: 0)
        try await history.append(old)
        let read = try #require(try await history.sessions(matching: .all).first)
        #expect(read.awayStretches.isEmpty)
        #expect(read.focused(at: read.endedAt!) == old.focused(at: old.endedAt!))
    }
}
