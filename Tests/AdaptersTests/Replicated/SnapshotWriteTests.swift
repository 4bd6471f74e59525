import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A write of a suite merged per field starts from the suite's snapshot
/// when it is current (issue 45: `schedule add` with 1,000 schedules merged
/// them all to change one): what it appends, what every device then reads,
/// and the snapshot it leaves are those of a write that merged the logs.
@Suite struct SnapshotWriteTests {
    static let a = SuiteSnapshotTests.a, b = SuiteSnapshotTests.b
    static let t0 = ReplicatedLogStoreTests.t0

    static func store(_ folder: String, _ device: String, now: Date) -> ReplicatedLogStore {
        ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { now })
    }

    /// Device A's 40 groups and device B's line for one of them, stamped
    /// `bAhead` past A's clock; A has read the suite, so its snapshot is there.
    static func folder(bAhead: TimeInterval = 0) throws -> String {
        let folder = TemporaryDirectory().file("devices")
        try store(folder, a, now: t0).update("groups") { values in
            for index in 0..<40 {
                values["group-\(index)"] = .object(["name": .string("group number \(index)"), "targets": .array([.string("site\(index).example.com")])])
            }
        }
        try store(folder, b, now: t0.addingTimeInterval(bAhead)).update("groups") { values in
            guard case .object(var group)? = values["group-7"] else { return }
            group["name"] = .string("named on b")
            values["group-7"] = .object(group)
        }
        _ = try store(folder, a, now: t0).values(of: "groups")
        #expect(FileManager.default.fileExists(atPath: folder + "/\(a)/snapshots/groups.json"))
        return folder
    }

    /// The same folder without A's snapshots: a write there merges the logs.
    static func twin(of folder: String) throws -> String {
        let twin = TemporaryDirectory().file("devices")
        try FileManager.default.copyItem(atPath: folder, toPath: twin)
        try FileManager.default.removeItem(atPath: twin + "/\(a)/snapshots")
        return twin
    }

    /// A rename, a target added, a group deleted and one made, in one write.
    static func edit(_ values: inout [String: JSONValue]) {
        if case .object(var group)? = values["group-7"] {
            group["name"] = .string("renamed on a")
            values["group-7"] = .object(group)
        }
        if case .object(var group)? = values["group-3"], case .array(let targets)? = group["targets"] {
            group["targets"] = .array(targets + [.string("added.example.com")])
            values["group-3"] = .object(group)
        }
        values["group-5"] = nil
        values["group-new"] = .object(["name": .string("new"), "targets": .array([])])
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The values every log gives, no snapshot asked.
    static func fromLogs(_ folder: String) throws -> [String: JSONValue] {
        let copy = try twin(of: folder)
        return try store(copy, b, now: t0).values(of: "groups")
    }

    @Test("a write from the snapshot appends the very lines a write that merged the logs does, and leaves the same state and a current snapshot",
          arguments: [0, 3_600, 3 * 86_400])
    func sameLinesAsAMergedWrite(bAhead: TimeInterval) throws {
        let folder = try Self.folder(bAhead: bAhead), twin = try Self.twin(of: folder)
        let now = Self.t0.addingTimeInterval(60)
        for place in [folder, twin] {
            let writer = Self.store(place, Self.a, now: now)
            try writer.update("groups", Self.edit)
            writer.forgetParsedSuites()
        }
        let log = "/\(Self.a)/changes/groups.jsonl"
        #expect(try Self.text(folder + log) == Self.text(twin + log))
        let merged = try Self.fromLogs(folder)
        #expect(merged == (try Self.fromLogs(twin)))
        #expect(merged["group-7"].flatMap(RecordNamesProbe.name) == "renamed on a", "the later edit wins, whatever B's clock said")
        #expect(merged["group-5"] == nil && merged["group-new"] != nil)
        // The snapshot the writer left serves the next process, and says
        // what the logs say; the good copy is the log.
        #expect(try Self.store(folder, Self.a, now: now).values(of: "groups") == merged)
        #expect(try Self.text(folder + "/\(Self.a)/snapshots/groups.log") == Self.text(folder + log))
    }

    @Test("a write from the snapshot stamps its lines after every stamp of every log, another device's clock ahead of this one")
    func stampsAfterEveryLog() throws {
        let folder = try Self.folder(bAhead: 3_600)
        let writer = Self.store(folder, Self.a, now: Self.t0.addingTimeInterval(60))
        try writer.update("groups") { values in
            guard case .object(var group)? = values["group-9"] else { return }
            group["name"] = .string("edited after b's line")
            values["group-9"] = .object(group)
        }
        let lines = try Self.text(folder + "/\(Self.a)/changes/groups.jsonl").split(separator: "\n")
        let bLine = try Self.text(folder + "/\(Self.b)/changes/groups.jsonl").split(separator: "\n").last!
        func stamp(_ line: Substring) throws -> HybridTimestamp? {
            let members = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (members?["at"] as? String).flatMap(HybridTimestamp.init(text:))
        }
        let written = try #require(try stamp(lines.last!)), seen = try #require(try stamp(bLine))
        #expect(written > seen)
    }

    /// A snapshot is a cache: a value in it that its lines do not hold (a
    /// hand edit) may be served to a read, but a write never takes it for
    /// the record's: it merges the logs and runs its change again on them.
    @Test("a snapshot's value of the record written that its lines do not hold is never written back into a log")
    func aHandEditedSnapshotIsNotWrittenBack() throws {
        let folder = try Self.folder()
        let snapshot = folder + "/\(Self.a)/snapshots/groups.json"
        try Self.text(snapshot).replacingOccurrences(of: "\"group number 3\"", with: "\"edited by hand\"")
            .write(toFile: snapshot, atomically: true, encoding: .utf8)
        var runs = 0
        let writer = Self.store(folder, Self.a, now: Self.t0.addingTimeInterval(60))
        try writer.update("groups") { values in
            runs += 1
            guard case .object(var group)? = values["group-3"] else { return }
            group["targets"] = .array([.string("only.example.com")])
            values["group-3"] = .object(group)
        }
        writer.forgetParsedSuites()
        #expect(runs == 2, "run on the snapshot's values, then on the logs'")
        let merged = try Self.fromLogs(folder)
        #expect(merged["group-3"] == .object(["name": .string("group number 3"), "targets": .array([.string("only.example.com")])]))
        #expect(try Self.store(folder, Self.a, now: Self.t0).values(of: "groups") == merged, "the snapshot made again")
    }

    /// The lines of the records written are found by their keys' bytes
    /// first; a line that spells its key with escapes is found all the same.
    @Test("another device's line whose key is written with escapes is among the record's lines")
    func anEscapedKeyIsFound() throws {
        let folder = try Self.folder()
        let bLog = folder + "/\(Self.b)/changes/groups.jsonl"
        let escaped = "{\"at\":\"\(1_795_000_000_000 + 30_000)-0-\(Self.b)\",\"changes\":[{\"set\":\"note\",\"value\":\"from b\"}],"
            + "\"key\":\"group\\u002d1\\u0031\"}\n"
        try (Self.text(bLog) + escaped).write(toFile: bLog, atomically: false, encoding: .utf8)
        _ = try Self.store(folder, Self.a, now: Self.t0).values(of: "groups")   // the snapshot made again, with b's line
        var runs = 0
        let writer = Self.store(folder, Self.a, now: Self.t0.addingTimeInterval(60))
        try writer.update("groups") { values in
            runs += 1
            guard case .object(var group)? = values["group-11"] else { return }
            group["name"] = .string("renamed on a")
            values["group-11"] = .object(group)
        }
        #expect(runs == 1, "written from the snapshot: b's line was among group-11's")
        #expect(try Self.fromLogs(folder)["group-11"] == .object(["name": .string("renamed on a"), "note": .string("from b"),
                                                                   "targets": .array([.string("site11.example.com")])]))
    }

    @Test("a write that changes nothing from the snapshot appends nothing")
    func nothingChangedNothingWritten() throws {
        let folder = try Self.folder()
        let log = folder + "/\(Self.a)/changes/groups.jsonl"
        let before = try Self.text(log)
        let writer = Self.store(folder, Self.a, now: Self.t0.addingTimeInterval(60))
        let seen = try writer.update("groups") { values in values.count }
        #expect(seen == 40)
        #expect(try Self.text(log) == before)
    }

    @Test("20 processes x 25 commands, each reading, writing and leaving its snapshot, keep all 500 increments")
    func concurrentCommands() throws {
        let folder = TemporaryDirectory().file("devices")
        // Large enough that every command keeps a snapshot.
        try Self.store(folder, Self.a, now: Date()).update("counter") { $0["pad"] = .string(String(repeating: "p", count: 5_000)) }
        let probes = try (0..<20).map { _ in try ProbeProcess(["increment-commands", folder, Self.a, "25"]) }
        #expect(probes.map { $0.wait() }.allSatisfy { $0 == 0 })
        #expect(try Self.store(folder, Self.b, now: Date()).values(of: "counter")["n"] == .int(500))
        #expect(try Self.store(folder, Self.a, now: Date()).values(of: "counter")["n"] == .int(500), "the snapshot left says so too")
    }
}

/// A group value's name, for the expectations above.
private enum RecordNamesProbe {
    static func name(_ value: JSONValue) -> String? {
        guard case .object(let members) = value, case .string(let name)? = members["name"] else { return nil }
        return name
    }
}
