import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A writer takes the lines it appends into what it has read
/// (`ChangeLogReader.takeWritten`) instead of parsing them back. What it
/// answers afterwards must always be what a fresh process reads from the
/// logs: another device's line, another process of the same device, a log
/// replaced (on a reused inode or not, at the same size) and a value whose
/// text reads back otherwise (a whole double) are all seen.
@Suite("A writer's own lines, kept, are never stale")
struct WrittenLinesTests {
    static let a = "aaaaaaaa-0000-4000-8000-000000000001"
    static let b = "bbbbbbbb-0000-4000-8000-000000000002"

    /// A process's store of `device` on the folder (no compaction: the
    /// logs stay as written, so the tests can rewrite them by hand).
    static func store(_ folder: String, _ device: String) -> ReplicatedLogStore {
        ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { Date() }, compactionInterval: 0)
    }

    /// Everything a read answers about `suite`.
    struct Answers: Equatable {
        var values: [String: JSONValue]
        var unseen: [JSONValue]
        var last: JSONValue?
        var removedElsewhere: JSONValue?
    }

    /// What `store` answers about `suite`.
    static func answers(_ store: ReplicatedLogStore, _ suite: String, key: String) throws -> Answers {
        Answers(values: try store.values(of: suite), unseen: try store.unseen(suite, key: key), last: try store.lastValue(suite, key: key),
                removedElsewhere: try store.valueRemovedElsewhere(suite, key: key))
    }

    /// The writer answers as a fresh process of its device does.
    static func expectFresh(_ writer: ReplicatedLogStore, _ folder: String, _ device: String, _ suite: String, key: String,
                            _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try answers(writer, suite, key: key) == answers(store(folder, device), suite, key: key), comment, sourceLocation: sourceLocation)
    }

    static func session(_ name: String) -> JSONValue {
        .object(["id": .string(name), "startedAt": .string("2026-11-25T09:00:00Z"), "ratio": .double(0.25), "tags": .array([.string(name)])])
    }

    @Test("the session slot written twice, as a stop does, with another device and another process writing between")
    func theSlotWithOthersWritingBetween() throws {
        let folder = TemporaryDirectory().file("devices")
        let writer = Self.store(folder, Self.a)
        try writer.update("session") { $0["current"] = Self.session("first") }
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "after its own first write")
        try writer.update("session") { $0["current"] = Self.session("ended") }
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "after its own second write")
        // Another device starts a session unseen: the writer's next look sees it.
        try Self.store(folder, Self.b).update("session") { $0["current"] = Self.session("elsewhere") }
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "another device's line")
        let emptied = try writer.update("session") { values -> Bool in
            guard values["current"] == Self.session("elsewhere") else { return false }
            values["current"] = nil
            return true
        }
        #expect(emptied, "its compare-and-swap saw the other device's value")
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "after emptying")
        // Another process of the same device appends to the writer's own log.
        try Self.store(folder, Self.a).update("session") { $0["current"] = Self.session("daemon") }
        #expect(try writer.values(of: "session")["current"] == Self.session("daemon"))
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "the same device's other process")
        try writer.update("session") { $0["current"] = nil }
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "after the last write")
    }

    @Test("a set-merged suite's changes per field, and a new log the write made")
    func groupsPerField() throws {
        let folder = TemporaryDirectory().file("devices")
        let writer = Self.store(folder, Self.a)
        try writer.update("groups") { $0["g"] = .object(["name": .string("work"), "targets": .array([.string("a.example")])]) }
        try Self.store(folder, Self.b).update("groups") { values in
            guard case .object(var group)? = values["g"] else { return }
            group["targets"] = .array([.string("a.example"), .string("b.example")])
            values["g"] = .object(group)
        }
        try writer.update("groups") { values in
            guard case .object(var group)? = values["g"] else { return }
            group["name"] = .string("deep work")
            values["g"] = .object(group)
        }
        try Self.expectFresh(writer, folder, Self.a, "groups", key: "g", "a rename here, a target there")
        guard case .object(let group)? = try writer.values(of: "groups")["g"] else { Issue.record("no group"); return }
        #expect(group["name"] == .string("deep work") && group["targets"] == .array([.string("a.example"), .string("b.example")]))
    }

    /// The text of 3.0 is `3`: what every other process reads is the
    /// integer, so the writer must not keep the double it wrote.
    @Test("a value whose text reads back otherwise (a whole double) is what the logs say, not what was written")
    func aWholeDoubleReadsBackAsTheLogsSay() throws {
        let folder = TemporaryDirectory().file("devices")
        let writer = Self.store(folder, Self.a)
        try writer.update("config") { $0["ratio"] = .double(0.5) }
        try writer.update("config") { $0["count"] = .double(3) }
        #expect(try writer.values(of: "config")["count"] == .int(3))
        #expect(try writer.values(of: "config")["ratio"] == .double(0.5))
        try Self.expectFresh(writer, folder, Self.a, "config", key: "count", "the whole double")
    }

    @Test("its own log replaced after its write, at the same size with the old time, on a reused inode or not, is read")
    func ownLogReplacedAtTheSameSize() throws {
        let folder = TemporaryDirectory().file("devices")
        let writer = Self.store(folder, Self.a)
        try writer.update("session") { $0["current"] = Self.session("aaaa") }
        try writer.update("session") { $0["current"] = Self.session("bbbb") }
        let log = folder + "/\(Self.a)/changes/session.jsonl"
        var before = stat()
        _ = lstat(log, &before)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        // What a sync tool does to a file it brings up to date: removed,
        // written anew (the freed inode often reused), the source's time set.
        try FileManager.default.removeItem(atPath: log)
        #expect(FileManager.default.createFile(atPath: log, contents: Data(text.replacingOccurrences(of: "bbbb", with: "cccc").utf8)))
        var times = [before.st_mtim, before.st_mtim]
        _ = utimensat(AT_FDCWD, log, &times, 0)
        #expect(try writer.values(of: "session")["current"] == Self.session("cccc"))
        try Self.expectFresh(writer, folder, Self.a, "session", key: "current", "the replaced log")
        // Rewritten in place, same size, old time: read as well.
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "bbbb", with: "dddd").utf8))
        try handle.close()
        _ = utimensat(AT_FDCWD, log, &times, 0)
        #expect(try writer.values(of: "session")["current"] == Self.session("dddd"))
    }
}
