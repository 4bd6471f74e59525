import Adapters
import Domain
import Foundation
import PortContracts
import Testing

@Suite("JSON-lines history on real files")
struct SessionHistoryFileTests {
    let directory = TemporaryDirectory()
    let logs = InMemoryLogHandler()

    func history(device: String = "device-a", in path: String? = nil) -> JSONLinesSessionHistory {
        JSONLinesSessionHistory(directory: path ?? directory.file("history"), deviceID: device,
                                logger: Logger(label: "test", handler: logs))
    }

    func session(startingAt unix: TimeInterval, note: String? = nil) -> Session {
        let start = Date(timeIntervalSince1970: unix)
        return Session(groupId: GroupID(), startedAt: start, plannedEnd: start + 1_500, tags: ["a"], note: note)
            .ending(at: start + 1_500, outcome: .completed)
    }

    @Test(arguments: SessionHistoryContract.checks)
    func contract(_ check: ContractCheck<SessionHistoryContract.Factory>) async throws {
        let root = TemporaryDirectory().file("history")
        try await check.run { JSONLinesSessionHistory(directory: root, deviceID: "dev", logger: Logger(label: "t", handler: InMemoryLogHandler())) }
    }

    @Test("sessions go to one segment per device and UTC month of their start, files 0600")
    func layout() async throws {
        let history = history()
        try await history.append(session(startingAt: 1_793_491_200))       // 2026-11-01T00:00:00Z
        try await history.append(session(startingAt: 1_793_491_199))       // 2026-10-31T23:59:59Z
        let folder = directory.file("history/device-a")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["2026-10.jsonl", "2026-11.jsonl"])
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/2026-11.jsonl")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let line = try String(contentsOfFile: folder + "/2026-11.jsonl", encoding: .utf8)
        #expect(line.hasPrefix("{\"breaks\":[],\"endedAt\":\"2026-11-01T00:25:00Z\""))
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
    }

    @Test("appending a session already in the segment writes nothing, whatever the case of its id on disk")
    func repeatedAppendOnDisk() async throws {
        let history = history()
        let first = session(startingAt: 1_800_000_000), second = session(startingAt: 1_800_000_100)
        try await history.append(first)
        try await history.append(second)
        try await history.append(first)
        let path = directory.file("history/device-a/2027-01.jsonl")
        var text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.contains("\"id\":\"\(first.id)\""))
        text = text.replacingOccurrences(of: first.id.description, with: first.id.rawValue.uuidString)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try await history.append(first)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test("a torn last line is skipped with a warning, complete lines stay, the next append starts afresh")
    func tornLastLine() async throws {
        let history = history()
        let kept = session(startingAt: 1_800_000_000)
        try await history.append(kept)
        let path = directory.file("history/device-a/2027-01.jsonl")
        try appendRaw(#"{"breaks":[],"endedAt":"2027-01-15T08:"#, to: path)
        #expect(try await history.sessions(matching: .all) == [kept])
        #expect(logs.entries.contains { $0.level == .warning && $0.message.contains("torn") && $0.metadata["line"] == "2" })

        let next = session(startingAt: 1_800_000_100)
        try await history.append(next)
        #expect(Set(try await history.sessions(matching: .all)) == [kept, next])
        #expect(logs.entries.contains { $0.message.contains("malformed") && $0.metadata["line"] == "2" })
    }

    @Test("a malformed line in the middle is skipped and named; the rest is read")
    func malformedMiddleLine() async throws {
        let history = history()
        let first = session(startingAt: 1_800_000_000), last = session(startingAt: 1_800_000_200)
        try await history.append(first)
        let path = directory.file("history/device-a/2027-01.jsonl")
        try appendRaw("not json at all\n\n", to: path)
        try await history.append(last)
        #expect(try await history.sessions(matching: .all) == [last, first])
        #expect(logs.entries.contains { $0.metadata["line"] == "2" && $0.metadata["file"] == .string(path) })
    }

    @Test("a line nested a million deep is skipped as malformed, by sessions and spans alike, not a stack overflow")
    func deeplyNestedLine() async throws {
        let history = history()
        let first = session(startingAt: 1_800_000_000)
        try await history.append(first)
        let path = directory.file("history/device-a/2027-01.jsonl")
        try appendRaw("{\"x\":" + String(repeating: "[", count: 1_000_000) + "\n", to: path)
        #expect(try await history.sessions(matching: .all) == [first])
        #expect(try await history.spans(matching: .all).map(\.id) == [first.id])
    }

    @Test("two devices' folders copied into one data directory read as their union, each session once")
    func deviceUnion() async throws {
        let root = directory.file("history")
        let shared = session(startingAt: 1_800_000_000)
        let onA = session(startingAt: 1_800_000_500), onB = session(startingAt: 1_800_001_000)
        try await history(device: "device-a").append(shared)
        try await history(device: "device-a").append(onA)
        try await history(device: "device-b").append(onB)
        try await history(device: "device-b").append(shared)   // the same session imported on both
        #expect(try await history(device: "device-c", in: root).sessions(matching: .all) == [onB, onA, shared])
    }

    @Test("a limit reads the newest months and still returns the newest sessions")
    func limitAcrossMonths() async throws {
        let history = history()
        let sessions = (0..<6).map { session(startingAt: 1_790_000_000 + Double($0) * 20 * 86_400) }
        for session in sessions.shuffled() { try await history.append(session) }
        #expect(try await history.sessions(matching: .init(limit: 3)) == Array(sessions.reversed().prefix(3)))
        #expect(try await history.sessions(matching: .init(since: sessions[2].startedAt, limit: 10)).count == 4)
    }

    @Test("with a limit, only the chosen lines are decoded whole, and the answer is what filtering everything gives")
    func limitedAnswersMatchFullReads() async throws {
        var generator = SystemRandomNumberGenerator()
        let groups = [GroupID(), GroupID(), GroupID()]
        let root = directory.file("history")
        var all: [Session] = []
        for index in 0..<600 {
            // Ties on purpose: many sessions share a start second.
            let start = Date(timeIntervalSince1970: 1_780_000_000 + Double(Int.random(in: 0..<200, using: &generator)) * 43_200)
            // Text that looks like the keys a quick scan looks for must not fool it.
            let session = Session(groupId: groups[index % 3], startedAt: start, plannedEnd: nil,
                                  tags: ["t\(index)", #""startedAt":"1999-01-01T00:00:00Z""#],
                                  note: index % 7 == 0 ? #"{"id":"00000000-0000-0000-0000-000000000000"}"# : nil)
                .ending(at: start + 60, outcome: .stopped)
            all.append(session)
            try await history(device: index % 4 == 0 ? "device-b" : "device-a").append(session)
            if index % 50 == 0 {   // the same session imported on a second device
                try await history(device: "device-c").append(session)
                all.append(session)
            }
        }
        let reader = history(device: "device-d", in: root)
        let middle = all.map(\.startedAt).sorted()[300]
        for query in [HistoryQuery(limit: 20), HistoryQuery(groupId: groups[1], limit: 7), HistoryQuery(since: middle, limit: 1_000),
                      HistoryQuery(until: middle, limit: 33), HistoryQuery(since: middle, groupId: groups[2], limit: 5), HistoryQuery(limit: 0)] {
            #expect(try await reader.sessions(matching: query) == query.arrange(all), "\(query)")
        }
    }

    @Test("with a limit, a line broken after its key fields is skipped with a warning and the next newest takes its place")
    func limitSkipsBrokenLines() async throws {
        let history = history()
        let sessions = (0..<3).map { session(startingAt: 1_790_000_000 + Double($0) * 60) }
        for session in sessions { try await history.append(session) }
        let file = directory.file("history/device-a/") + SegmentFile.name(of: sessions[2])
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"outcome\":\"completed\"", with: "\"outcome\":\"mangled\"", options: [], range: text.range(of: sessions[2].id.description).map { $0.lowerBound..<text.endIndex })
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await history.sessions(matching: .init(limit: 2)) == [sessions[1], sessions[0]])
        #expect(logs.entries.contains { $0.message.contains("malformed") && $0.metadata["line"]?.description == "3" })
    }
}

/// Where a test session's line lives.
enum SegmentFile {
    static func name(of session: Session) -> String { String(Timestamp.format(session.startedAt).prefix(7)) + ".jsonl" }
}

@Suite("History line codec")
struct SessionLineCodecTests {
    let directory = TemporaryDirectory()

    @Test("notes and tags with quotes, escapes, control characters and emoji round-trip")
    func oddText() async throws {
        let history = JSONLinesSessionHistory(directory: directory.file("h"), deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let start = Date(timeIntervalSinceReferenceDate: 815_000_000.123456)
        let note = "quote \" backslash \\ slash / tab \t newline \n bell \u{7} emoji 🙂 nul \u{0}"
        let session = try Session(groupId: GroupID(), startedAt: start, plannedEnd: start + 60, strict: true,
                                  tags: ["ünï", "a\"b"], note: note, origin: .schedule("mornings / weekdays"))
            .pausing(at: start + 10).ending(at: start + 60, outcome: .completed)
        try await history.append(session)
        #expect(try await history.sessions(matching: .all) == [session])
    }

    @Test("lines written by hand in any key order, with spaces and unknown keys, are read")
    func handWritten() async throws {
        let folder = directory.file("h/d")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let line = #"{ "outcome" : "stopped", "future": {"x":[1,2.5e3,null,true]}, "startedAt":"2027-01-15T09:00:00+01:00","#
            + #" "groupId":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "id":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","#
            + #" "tags":["\u00fc"], "breaks":[{"end":null,"start":"2027-01-15T08:10:00Z"}], "note":null, "endedAt":"2027-01-15T08:30:00Z" }"#
        #expect(FileManager.default.createFile(atPath: folder + "/2027-01.jsonl", contents: Data((line + "\n").utf8)))
        let history = JSONLinesSessionHistory(directory: directory.file("h"), deviceID: "d", logger: Logger(label: "t", handler: InMemoryLogHandler()))
        let read = try #require(try await history.sessions(matching: .all).first)
        #expect(read.id.description == "6ba7b811-9dad-11d1-80b4-00c04fd430c8")
        #expect(Timestamp.format(read.startedAt) == "2027-01-15T08:00:00Z")
        #expect(read.tags == ["ü"] && read.outcome == .stopped && read.origin == .manual && read.breaks.count == 1)
    }
}

/// Appends text to a file as a crash or a hand edit would, bypassing the history.
func appendRaw(_ text: String, to path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}
