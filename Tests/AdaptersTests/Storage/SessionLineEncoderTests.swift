import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// History lines are written by a hand-made encoder; they must be exactly
/// what the store's JSONEncoder writes, so files stay one format whoever wrote them.
@Suite("History lines match the JSON encoder byte for byte")
struct SessionLineEncoderTests {
    static func sessions() -> [Session] {
        var sessions = (0..<50).map { Fixtures.endedSession(startingAt: Double($0) * 1_234.567_891) }
        let group = GroupID()
        let odd = ["", "quote \" and \\ backslash", "line\nbreak\ttab\r\u{8}\u{c}", "ctrl \u{1}\u{1f}", "slash / ü 👩‍💻", "\u{7f}"]
        for (index, text) in odd.enumerated() {
            let start = Fixtures.instant(Double(index) * 86_400)
            sessions.append(Session(id: SessionID(), groupId: group, startedAt: start, plannedEnd: index % 2 == 0 ? nil : start + 60,
                                    endedAt: start + 120, outcome: index % 2 == 0 ? .stopped : .completed, strict: false,
                                    breaks: [Break(start: start + 10, end: start + 20), Break(start: start + 30, end: nil)],
                                    tags: [text, "plain"], note: index == 0 ? nil : text, origin: index % 3 == 0 ? .imported("watson") : .schedule(text),
                                    groupName: index == 1 ? nil : "group " + text))
        }
        // Cycles: a fixed one with and without its long break, and a flow.
        for (index, cycle) in [Cycle.fixed(work: 1_500, breakLength: 300, longBreak: 900, rounds: 4), .fixed(work: 2.5, breakLength: 0.75),
                               .flow(), .flow(breakRatio: 0.333)].enumerated() {
            let start = Fixtures.instant(Double(index) * 7_200)
            sessions.append(Session(id: SessionID(), groupId: group, startedAt: start, plannedEnd: start + 600, endedAt: start + 600,
                                    outcome: .completed, strict: index == 0, breaks: [Break(start: start + 60, end: start + 90)], tags: [],
                                    note: nil, origin: .manual, groupName: "cycles", cycle: cycle))
        }
        return sessions
    }

    @Test("every line equals JSONEncoder's output for the same session")
    func sameBytes() async throws {
        let directory = TemporaryDirectory()
        let history = JSONLinesSessionHistory(directory: directory.path, deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let sessions = Self.sessions()
        try await history.append(contentsOf: sessions)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.file("d")).sorted().flatMap { file in
            try String(contentsOfFile: directory.file("d/" + file), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        let encoder = StoreJSON.encoder()
        let expected = try sessions.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(Set(written) == Set(expected))
        #expect(written.count == sessions.count)
    }

    @Test("a strict session's boot-time deadline reads back exactly")
    func bootDeadline() async throws {
        let directory = TemporaryDirectory()
        let history = JSONLinesSessionHistory(directory: directory.path, deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let strict = Fixtures.session(strict: true).ending(at: Fixtures.instant(100), outcome: .stopped)
        try await history.append(strict)
        #expect(try await history.sessions(matching: .all) == [strict])
        let line = try String(contentsOfFile: try FileManager.default.contentsOfDirectory(atPath: directory.file("d")).map { directory.file("d/" + $0) }[0], encoding: .utf8)
        #expect(try StoreJSON.decoder().decode(Session.self, from: Data(line.utf8)) == strict)
    }

    @Test("a session's cycle reads back exactly: report counts its rounds from history")
    func cycleReadsBack() async throws {
        let directory = TemporaryDirectory()
        let history = JSONLinesSessionHistory(directory: directory.path, deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let cycles = Self.sessions().filter { $0.cycle != nil }
        try await history.append(contentsOf: cycles)
        #expect(Set(try await history.sessions(matching: .all)) == Set(cycles))
    }
}
