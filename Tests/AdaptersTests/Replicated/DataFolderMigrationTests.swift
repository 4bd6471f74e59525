import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A data folder of the single-device layout (`store/<suite>.json`) moves
/// into this device's change logs once, losing nothing, even when the move
/// is killed half way; an older retime then refuses the folder, and this
/// one refuses a folder of a newer layout.
@Suite struct DataFolderMigrationTests {
    static let device = "aaaaaaaa-0000-4000-8000-000000000001"

    /// A folder as retime 0.x left it: 200 groups, settings, a session.
    static func legacyFolder() throws -> (root: String, values: [String: [String: JSONValue]]) {
        let root = TemporaryDirectory().file("data")
        let old = JSONFileStore(directory: root + "/store")
        var groups: [String: JSONValue] = [:]
        for index in 0..<200 {
            groups[UUID().uuidString.lowercased()] = .object(["name": .string("group \(index)"), "targets": .array([.string("site\(index).com")])])
        }
        let values: [String: [String: JSONValue]] = [
            "groups": groups,
            "config": ["defaultGroup": .string("group 7"), "notify": .string("off")],
            "session": ["current": .object(["id": .string("s1"), "group": .string("group 7")])],
            "shield": ["record": .string("machine only")],
        ]
        for (suite, content) in values { try old.update(suite) { $0 = content } }
        return (root, values)
    }

    @Test func everyValueMovesAndTheOldFilesRefuseAnOlderRetime() throws {
        let (root, values) = try Self.legacyFolder()
        let store = DataFolderStore.open(root: root, deviceID: { Self.device }, now: { Date() })
        for (suite, content) in values { #expect(try store.values(of: suite) == content, "\(suite)") }
        #expect(FileManager.default.fileExists(atPath: root + "/devices/\(Self.device)/changes/groups.jsonl"))
        #expect(FileManager.default.fileExists(atPath: root + "/layout.json"))
        // What an older retime reads: a suite of a version it does not know.
        #expect {
            try JSONFileStore(directory: root + "/store").values(of: "groups")
        } throws: { ($0 as? StoreError)?.code == "store.unsupportedVersion" }
        // The machine's own suite moved into this device's folder, read there.
        #expect(try JSONFileStore(directory: root + "/devices/\(Self.device)/store").values(of: "shield") == values["shield"])
        #expect(!FileManager.default.fileExists(atPath: root + "/store/shield.json"))
        // Another device sees the same, from the logs alone.
        let other = DataFolderStore.open(root: root, deviceID: { "bbbbbbbb-0000-4000-8000-000000000002" }, now: { Date() })
        #expect(try other.values(of: "groups") == values["groups"])
    }

    @Test func aFolderOfANewerLayoutIsRefused() throws {
        let root = TemporaryDirectory().file("data")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("{\"format\":\"retime.data\",\"version\":3}\n".utf8).write(to: URL(fileURLWithPath: root + "/layout.json"))
        #expect {
            try DataFolderStore.open(root: root, deviceID: { Self.device }, now: { Date() }).values(of: "groups")
        } throws: { error in
            guard case StoreError.unsupportedVersion(let path, let version)? = error as? StoreError else { return false }
            return path == root + "/layout.json" && version == 3
        }
    }

    @Test("the migration killed at 100 random instants loses nothing, and the next run finishes it")
    func killedMigration() throws {
        var interrupted = 0
        // The bound follows the migration's end (lowered to the delay of a
        // kill that came after it, raised a little by one that came before),
        // so the kills cluster inside it however fast this machine runs it.
        var bound: UInt32 = 20_000
        for _ in 0..<100 {
            let (root, values) = try Self.legacyFolder()
            let probe = try ProbeProcess(["migrate", root, Self.device])
            probe.waitUntilReady()
            let delay = UInt32.random(in: 0...bound)
            usleep(delay)
            probe.kill()
            if !FileManager.default.fileExists(atPath: root + "/layout.json") {
                interrupted += 1
                bound = min(20_000, bound + bound / 8 + 100)
            } else {
                bound = delay
            }
            let store = DataFolderStore.open(root: root, deviceID: { Self.device }, now: { Date() })
            for (suite, content) in values { #expect(try store.values(of: suite) == content, "\(suite)") }
        }
        // Most kills land inside the migration, not after it.
        #expect(interrupted > 10)
    }
}
