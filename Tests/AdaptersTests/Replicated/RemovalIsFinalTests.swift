import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A session slot's value removed for good (a stop's last write, a
/// `cancel`: the delete names the session, `ends`) does not come back when
/// an edit made on a device that had not seen the removal arrives, however
/// late its stamp; the same session made again after the removal holds.
@Suite struct RemovalIsFinalTests {
    static let a = ReplicatedLogStoreTests.a, b = ReplicatedLogStoreTests.b, t0 = ReplicatedLogStoreTests.t0

    static func store(_ folder: String, _ device: String, at offset: TimeInterval) -> ReplicatedLogStore {
        ReplicatedLogStoreTests.store(folder, device, now: t0.addingTimeInterval(offset))
    }

    static func session(_ id: String, paused: Bool = false) -> JSONValue {
        .object(["id": .string(id), "paused": .bool(paused)])
    }

    @Test("an edit made unseen of a removal reads as removed on both devices, is no concurrent start, and the device that made it lowers its block")
    func aLateEditDoesNotBringItBack() throws {
        let folderA = TemporaryDirectory().file("devices"), folderB = TemporaryDirectory().file("devices")
        try Self.store(folderA, Self.a, at: 0).update("session") { $0["current"] = Self.session("s1") }
        try ReplicatedLogStoreTests.sync(folderA, to: folderB)
        try Self.store(folderA, Self.a, at: 10).update("session") { $0["current"] = nil }
        // B, an hour later by its clock, pauses and resumes the session it still sees.
        try Self.store(folderB, Self.b, at: 3_600).update("session") { $0["current"] = Self.session("s1", paused: true) }
        try Self.store(folderB, Self.b, at: 3_601).update("session") { $0["current"] = Self.session("s1") }
        try ReplicatedLogStoreTests.sync(folderB, to: folderA)
        try ReplicatedLogStoreTests.sync(folderA, to: folderB)
        for (folder, device) in [(folderA, Self.a), (folderB, Self.b)] {
            let store = Self.store(folder, device, at: 3_700)
            #expect(try store.values(of: "session")["current"] == nil, "\(device)")
            #expect(try store.unseen("session", key: "current").isEmpty, "\(device)")
        }
        #expect(try Self.store(folderB, Self.b, at: 3_700).valueRemovedElsewhere("session", key: "current") == Self.session("s1"),
                "B lowers the block it holds for s1")
        #expect(try Self.store(folderA, Self.a, at: 3_700).valueRemovedElsewhere("session", key: "current") == nil, "A removed it itself")
    }

    @Test("the same session made again after its removal (a schedule's interval, one id on every device) holds, and so do its edits")
    func madeAgainHolds() throws {
        let folder = TemporaryDirectory().file("devices")
        try Self.store(folder, Self.a, at: 0).update("session") { $0["current"] = Self.session("s1") }
        try Self.store(folder, Self.a, at: 10).update("session") { $0["current"] = nil }
        try Self.store(folder, Self.b, at: 20).update("session") { $0["current"] = Self.session("s1") }
        try Self.store(folder, Self.b, at: 30).update("session") { $0["current"] = Self.session("s1", paused: true) }
        for device in [Self.a, Self.b] {
            #expect(try Self.store(folder, device, at: 40).values(of: "session")["current"] == Self.session("s1", paused: true))
        }
    }

    @Test("a device's log keeps its last removals past compaction, so a late edit of a session stopped a session ago meets its stop")
    func removalsOutliveCompaction() throws {
        let folderA = TemporaryDirectory().file("devices"), folderB = TemporaryDirectory().file("devices")
        for round in 0..<12 {
            let store = Self.store(folderA, Self.a, at: Double(10 * round))
            try store.update("session") { $0["current"] = Self.session("s\(round)") }
            // B sees s10 running, then nothing more from A for a while.
            if round == 12 - ReplicatedLogStore.removalsKept { try Self.copy(Self.a, from: folderA, to: folderB) }
            try store.update("session") { $0["current"] = nil }
        }
        let log = try String(contentsOfFile: "\(folderA)/\(Self.a)/changes/session.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(log.count <= ReplicatedLogStore.sessionCompactionInterval + ReplicatedLogStore.removalsKept + 2, "\(log.count) lines")
        #expect(log.filter { $0.contains("\"ends\"") }.count >= ReplicatedLogStore.removalsKept, "\(log)")
        try Self.store(folderB, Self.b, at: 3_600).update("session") { $0["current"] = Self.session("s\(12 - ReplicatedLogStore.removalsKept)", paused: true) }
        try Self.copy(Self.b, from: folderB, to: folderA)
        try Self.copy(Self.a, from: folderA, to: folderB)
        for (folder, device) in [(folderA, Self.a), (folderB, Self.b)] {
            #expect(try Self.store(folder, device, at: 3_700).values(of: "session")["current"] == nil, "\(device)")
        }
    }

    /// What a sync tool does with `device`'s logs: copies them as they are
    /// now (a compacted log is shorter than the copy it replaces).
    static func copy(_ device: String, from: String, to: String) throws {
        let files = FileManager.default, source = from + "/" + device + "/changes", target = to + "/" + device + "/changes"
        try files.createDirectory(atPath: target, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: source) where name.hasSuffix(".jsonl") {
            let data = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
            try data.write(to: URL(fileURLWithPath: target + "/" + name), options: .atomic)
        }
    }
}
