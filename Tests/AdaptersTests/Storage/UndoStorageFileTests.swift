import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// What `undo` keeps on disk: the journal of changes, and amendments
/// written as one line.
@Suite("undo's journal and amendment batches on real files")
struct UndoStorageFileTests {
    let directory = TemporaryDirectory()

    func history(in path: String) -> JSONLinesSessionHistory {
        JSONLinesSessionHistory(directory: path, deviceID: "dev", logger: Logger(label: "t", handler: InMemoryLogHandler()))
    }

    @Test(arguments: HistoryJournalContract.checks)
    func contract(_ check: ContractCheck<HistoryJournalContract.Factory>) async throws {
        let root = TemporaryDirectory().file("history")
        try await check.run { JSONLinesHistoryJournal(directory: root, deviceID: { "dev" }) }
    }

    @Test("the journal is the device folder's changes.journal, 0600; a torn last line is no change and the next record starts afresh")
    func journalFile() async throws {
        let root = directory.file("history")
        let journal = JSONLinesHistoryJournal(directory: root, deviceID: { "dev" })
        let first = HistoryChange(kind: .track, at: Fixtures.instant(100), entries: [.init(before: nil, after: Fixtures.endedSession(startingAt: 0))])
        try await journal.record(first)
        let path = root + "/dev/changes.journal"
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        try appendRaw(#"{"change":{"at":"2027-01-15T08:"#, to: path)
        #expect(try await journal.pending() == [first])
        let second = HistoryChange(kind: .delete, at: Fixtures.instant(200), entries: [.init(before: Fixtures.endedSession(startingAt: 0), after: nil)])
        try await journal.record(second)
        #expect(try await journal.pending() == [first, second])
        // History's readers pass it by: it is no month segment.
        #expect(try await history(in: root).sessions(matching: .all) == [])
    }

    @Test("amendments written as one line, cut at any byte by a crash, read as all of them or none")
    func tornBatch() async throws {
        let sessions = (0..<4).map { Fixtures.endedSession(startingAt: TimeInterval($0) * 1_000) }
        let source = directory.file("whole")
        let whole = history(in: source)
        try await whole.append(contentsOf: sessions)
        try await whole.amend(.delete(sessions[0].id, at: Fixtures.instant(9_000)))
        let before = try await whole.sessions(matching: .all)
        let amendments = source + "/dev/amendments.jsonl"
        let prefix = try #require(FileManager.default.contents(atPath: amendments))
        try await whole.amend(contentsOf: [.revise(sessions[0], at: Fixtures.instant(9_100)), .delete(sessions[1].id, at: Fixtures.instant(9_100)),
                                           .delete(sessions[2].id, at: Fixtures.instant(9_100))])
        let after = try await whole.sessions(matching: .all)
        #expect(after == [sessions[3], sessions[0]])
        let full = try #require(FileManager.default.contents(atPath: amendments))
        let line = full.suffix(from: prefix.count)
        #expect(line.filter { $0 == 0x0A }.count == 1, "one line")
        var cuts = 0
        for cut in Array(stride(from: 0, to: line.count, by: 7)) + [line.count] {
            let copy = directory.file("cut-\(cut)")
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            try (prefix + line.prefix(cut)).write(to: URL(fileURLWithPath: copy + "/dev/amendments.jsonl"))
            let read = try await history(in: copy).sessions(matching: .all)
            #expect(read == before || (cut >= line.count - 1 && read == after), "cut at \(cut) of \(line.count)")
            cuts += 1
        }
        #expect(cuts > 50)
    }

    @Test("a batch whose notes hold quotes, braces and brackets reads back; a batch line not whole is skipped")
    func batchScanning() async throws {
        let root = directory.file("tricky")
        let history = history(in: root)
        let tricky = Session(groupId: GroupID(), startedAt: Fixtures.instant(0), plannedEnd: Fixtures.instant(600), tags: ["a]}", "{b"],
                             note: #"say "}]," \ {"amendments":[ ok"#).ending(at: Fixtures.instant(600), outcome: .completed)
        let other = Fixtures.endedSession(startingAt: 1_000)
        try await history.append(contentsOf: [tricky, other])
        try await history.amend(contentsOf: [.revise(tricky, at: Fixtures.instant(9_000)), .delete(other.id, at: Fixtures.instant(9_000))])
        #expect(try await history.sessions(matching: .all) == [tricky])
        let path = root + "/dev/amendments.jsonl"
        for broken in [#"{"amendments":[{"deleted":true,"id":"\#(tricky.id)","revisedAt":"2030-01-01T00:00:00Z"}{"x":1}]}"#,
                       #"{"amendments":[{"deleted":true,"id":"\#(tricky.id)","revisedAt":"2030-01-01T00:00:00Z"},]}"#,
                       #"{"amendments":[{"deleted":true,"id":"\#(tricky.id)","revisedAt":"2030-01-01T00:00:00Z"}] x"#] {
            try appendRaw("\n" + broken + "\n", to: path)
            #expect(try await history.sessions(matching: .all) == [tricky], "\(broken)")
        }
    }
}
