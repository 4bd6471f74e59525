import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Samples in each tool's documented format, written by the tests.
enum ImportSamples {
    /// Watson's frames file as Watson writes it (`json.dump(..., indent=1)`):
    /// `[start, stop, project, id, tags, updated_at]`.
    static func watson(_ valid: Int, badAt position: Int = 1) -> (text: String, badLine: Int) {
        var frames: [String] = []
        for index in 0..<valid {
            let start = 1_735_884_000 + index * 7_200
            frames.append(" [\n  \(start),\n  \(start + 3_600),\n  \"project \(index % 2)\",\n  \"\(String(format: "%032x", index + 1))\",\n  [\n   \"tag\"\n  ],\n  \(start + 3_600)\n ]")
        }
        frames.insert(" [\n  1735884000,\n  \"soon\",\n  \"broken\",\n  \"ffffffffffffffffffffffffffffffff\",\n  [],\n  1\n ]", at: min(position, frames.count))
        let text = "[\n" + frames.joined(separator: ",\n") + "\n]\n"
        let badLine = 2 + frames.prefix(min(position, valid)).map { $0.split(separator: "\n").count }.reduce(0, +)
        return (text, badLine)
    }

    /// A Timewarrior month file: `inc START - END # tags # "annotation"`.
    static func timewarrior(_ valid: Int) -> (text: String, badLine: Int) {
        var lines = (0..<valid).map { index in
            "inc 202501\(String(format: "%02d", index + 1))T060000Z - 202501\(String(format: "%02d", index + 1))T063000Z # deep \"other tag\""
        }
        lines.insert("inc 20250131T060000Z - nonsense", at: min(1, lines.count))
        return (lines.joined(separator: "\n") + "\n", min(1, valid) + 1)
    }
}

@Suite("Import sources")
struct ImportSourceTests {
    @Test(arguments: HistoryImportSourceContract.checks)
    func watsonContract(_ check: ContractCheck<HistoryImportSourceContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            return .init(source: WatsonFramesSource(), missingPath: directory.file("nothing")) { valid in
                let sample = ImportSamples.watson(valid)
                try sample.text.write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
                return (directory.file("frames"), sample.badLine)
            }
        }
    }

    @Test(arguments: HistoryImportSourceContract.checks)
    func timewarriorContract(_ check: ContractCheck<HistoryImportSourceContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            return .init(source: TimewarriorSource(), missingPath: directory.file("nothing")) { valid in
                let sample = ImportSamples.timewarrior(valid)
                try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
                try sample.text.write(toFile: directory.file("data/2025-01.data"), atomically: true, encoding: .utf8)
                try "some tags data\n".write(toFile: directory.file("data/tags.data"), atomically: true, encoding: .utf8)
                return (directory.file("data"), sample.badLine)
            }
        }
    }

    @Test(arguments: HistoryImportSourceContract.checks)
    func retimeContract(_ check: ContractCheck<HistoryImportSourceContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            return .init(source: RetimeExportSource(), missingPath: directory.file("nothing")) { valid in
                var sessions = (0..<valid).map { Fixtures.endedSession(startingAt: Double($0) * 3_600) }
                sessions.insert(Fixtures.session(), at: min(1, sessions.count))   // still active: not importable
                let bytes = try RetimeExport.encode(sessions: sessions, groups: [], at: Fixtures.epoch)
                _ = FileManager.default.createFile(atPath: directory.file("export.json"), contents: Data(bytes))
                return (directory.file("export.json"), min(1, valid) + 1)
            }
        }
    }

    @Test("Watson: fields map to the session; the frame id is the session id; booleans are not times")
    func watsonFields() async throws {
        let directory = TemporaryDirectory()
        try """
        [[1735884000, 1735887600.5, "Writing", "0123456789abcdef0123456789abcdef", ["book", "ch 1"], 1],
         [true, 1735887600, "x", "a", [], 1],
         "not a frame",
         [1735884000, 1735887600, "", "b", [], 1],
         [1735884000, 1735887600, "no id"]]
        """.write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
        let batch = try await WatsonFramesSource().read(directory.file("frames"))
        let first = try #require(batch.records.first)
        #expect(first.groupName == "Writing")
        #expect(first.session.id.description == "01234567-89ab-cdef-0123-456789abcdef")
        #expect(first.session.startedAt == Date(timeIntervalSince1970: 1_735_884_000))
        #expect(first.session.endedAt == Date(timeIntervalSince1970: 1_735_887_600.5))
        #expect(first.session.tags == ["book", "ch 1"] && first.session.origin == .imported("watson"))
        #expect(batch.problems.count == 4)
        #expect(batch.problems.map(\.line) == [2, 3, 4, 5])
    }

    @Test("Watson: a file that is not a JSON array is refused whole, as the wrong format")
    func watsonNotJSON() async throws {
        let directory = TemporaryDirectory()
        try "{\"frames\": []}".write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
        await #expect(throws: ImportError.self) { try await WatsonFramesSource().read(directory.file("frames")) }
        try "[[1, 2, ".write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
        await #expect(throws: ImportError.self) { try await WatsonFramesSource().read(directory.file("frames")) }
    }

    @Test("a path that cannot be read is named once, with the reason")
    func unreadablePath() async throws {
        let directory = TemporaryDirectory()
        let missing = await #expect(throws: ImportError.self) { try await WatsonFramesSource().read(directory.file("nope")) }
        #expect(missing?.description == "cannot read \(directory.file("nope")): no such file")
        let folder = await #expect(throws: ImportError.self) { try await WatsonFramesSource().read(directory.path) }
        #expect(folder?.description == "cannot read \(directory.path): \(String(cString: strerror(EISDIR)))")
    }

    @Test("Timewarrior: quoted tags, annotations with escaped quotes, untagged and open intervals")
    func timewarriorLines() async throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        try """
        inc 20250105T060000Z - 20250105T063000Z # "deep work" c# "say \\"hi\\"" # "an \\"annotated\\" one"
        inc 20250106T060000Z - 20250106T070000Z
        inc 20250107T060000Z - 20250107T070000Z # # "only a note"
        inc 20250108T060000Z # still running
        """.write(toFile: directory.file("data/2025-01.data"), atomically: true, encoding: .utf8)
        let batch = try await TimewarriorSource().read(directory.file("data"))
        #expect(batch.records.map(\.groupName) == ["deep work", "timewarrior", "timewarrior"])
        #expect(batch.records[0].session.tags == ["c#", "say \"hi\""])
        #expect(batch.records[0].session.note == "an \"annotated\" one")
        #expect(batch.records[2].session.note == "only a note")
        #expect(batch.records[1].session.endedAt == Timestamp.parse("2025-01-06T07:00:00Z"))
        #expect(batch.problems == [.init(line: 4, message: "2025-01.data: an open interval (still running) is not imported")])
    }

    @Test("Timewarrior: the database's root reads its data folder; a folder with no month files is refused, not '0 imported'")
    func timewarriorRoot() async throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        try "".write(toFile: directory.file("timewarrior.cfg"), atomically: true, encoding: .utf8)
        try "inc 20250106T060000Z - 20250106T070000Z # email\n".write(toFile: directory.file("data/2025-01.data"), atomically: true, encoding: .utf8)
        #expect(try await TimewarriorSource().read(directory.path).records.map(\.groupName) == ["email"])
        let empty = TemporaryDirectory()
        let error = await #expect(throws: ImportError.self) { try await TimewarriorSource().read(empty.path) }
        #expect(error?.code == "import.invalidFormat")
    }

    @Test("Watson: its folder reads the frames file in it")
    func watsonFolder() async throws {
        let directory = TemporaryDirectory()
        try "[[1763629200, 1763632800, \"writing\", \"abc123\", [\"deep\"], 1763632800]]"
            .write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
        #expect(try await WatsonFramesSource().read(directory.path).records.map(\.groupName) == ["writing"])
    }

    @Test("a file that is not a retime export says where and what, in the file's terms", arguments: [
        ("[]", "its top level is not a JSON object like the one 'retime export --format json' writes"),
        ("nope", "it is not JSON"),
        ("{}", "'schema' is missing"),
        (#"{"schema":"retime/1","format":"retime-export","exportedAt":"2026-01-01T00:00:00Z","groups":[],"sessions":[{"id":1}]}"#,
         "sessions[0].id: "),   // then the decoder's own words
    ])
    func retimeReasons(content: String, reason: String) async throws {
        let directory = TemporaryDirectory()
        try content.write(toFile: directory.file("export.json"), atomically: true, encoding: .utf8)
        let error = await #expect(throws: ImportError.self) { try await RetimeExportSource().read(directory.file("export.json")) }
        guard case .notTheFormat(let path, "a retime export", let given)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == directory.file("export.json") && given.hasPrefix(reason), "\(given)")
    }

    @Test("a retime export reads back every field exactly, with its groups")
    func retimeLossless() async throws {
        let directory = TemporaryDirectory()
        let group = RetimeExport.ExportedGroup(id: GroupID(), name: "Deep Work", targets: [try Target(parsing: "slack.com")])
        let sessions = (0..<4).map { Fixtures.endedSession(group: group.id, startingAt: Double($0) * 86_400.123_456_789) }
        _ = FileManager.default.createFile(atPath: directory.file("export.json"),
                                       contents: Data(try RetimeExport.encode(sessions: sessions, groups: [group], at: Fixtures.epoch)))
        let batch = try await RetimeExportSource().read(directory.file("export.json"))
        #expect(batch.records.map(\.session) == sessions)
        #expect(batch.records.allSatisfy { $0.groupName == "Deep Work" && $0.groupId == group.id && $0.groupTargets == group.targets })
        try "{\"schema\":\"retime/1\",\"format\":\"other\"}".write(toFile: directory.file("other.json"), atomically: true, encoding: .utf8)
        await #expect(throws: ImportError.self) { try await RetimeExportSource().read(directory.file("other.json")) }
    }
}

@Suite("Import sources never crash")
struct ImportRobustnessTests {
    @Test("a million nested brackets is the wrong format, not a stack overflow")
    func deepNesting() async throws {
        let directory = TemporaryDirectory()
        try (String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000))
            .write(toFile: directory.file("frames"), atomically: true, encoding: .utf8)
        await #expect(throws: ImportError.self) { try await WatsonFramesSource().read(directory.file("frames")) }
    }

    @Test("2,000 mutated Watson files and Timewarrior lines: each is read or refused, never a crash")
    func mutations() async throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("timew"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let watson = Array(ImportSamples.watson(6).text.utf8), timewarrior = Array(ImportSamples.timewarrior(6).text.utf8)
        let noise = Array("[]{}\",:-#\\ 0123456789eE.tnfaulsx\n\u{0}é".utf8)
        func mutate(_ bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = noise.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(noise.randomElement(using: &generator)!, at: position)
                default: bytes = Array(bytes.prefix(position))
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "[")] }
            }
            return bytes
        }
        for _ in 0..<1_000 {
            _ = FileManager.default.createFile(atPath: directory.file("frames"), contents: Data(mutate(watson)))
            do { _ = try await WatsonFramesSource().read(directory.file("frames")) } catch is ImportError {}
            _ = FileManager.default.createFile(atPath: directory.file("timew/2025-01.data"), contents: Data(mutate(timewarrior)))
            do { _ = try await TimewarriorSource().read(directory.file("timew")) } catch is ImportError {}
        }
    }
}
