@testable import Adapters
import Domain
import Foundation
import Testing

/// `FileSyncFolder` and `SyncToolFiles` on real files (docs/storage.md, "Devices").
@Suite("sync folder files")
struct SyncFolderFileTests {
    static let this = "0b1c2d3e-0000-4000-8000-000000000001"
    static let other = "0b1c2d3e-0000-4000-8000-000000000002"

    final class Now: @unchecked Sendable {
        var date = Date(timeIntervalSince1970: 1_795_000_000)
    }

    func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test("sync tools' temporary and partial names are never data; conflict copies are, and name their original")
    func names() {
        for name in [".syncthing.groups.jsonl.tmp", "~syncthing~groups.jsonl.tmp", "2026-11.jsonl.part", ".~lock2026-11.jsonl#",
                     ".2026-11.jsonl.Xy12Ab", ".syncthing.2026-11.sync-conflict-20261120-101010-ABC.jsonl.tmp"] {
            #expect(SyncToolFiles.isTemporary(name), "\(name)")
            #expect(!SyncToolFiles.isConflictCopy(name), "\(name)")
        }
        for name in ["2026-11.jsonl", "groups.jsonl", "amendments.jsonl", "device.json", "~notes.txt"] {
            #expect(!SyncToolFiles.isTemporary(name) && !SyncToolFiles.isConflictCopy(name), "\(name)")
            #expect(SyncToolFiles.original(of: name) == name)
        }
        #expect(SyncToolFiles.original(of: "2026-11.sync-conflict-20261120-101010-ABCDEFG.jsonl") == "2026-11.jsonl")
        #expect(SyncToolFiles.original(of: "amendments.sync-conflict-20261120-101010-ABCDEFG.jsonl") == "amendments.jsonl")
        #expect(SyncToolFiles.original(of: "device.sync-conflict-20261120-101010-ABCDEFG.json") == "device.json")
        #expect(SyncToolFiles.original(of: "README.sync-conflict-20261120-101010-ABCDEFG") == "README")
    }

    @Test("the seen map: written when it changed; after the first record, at most once every seenInterval (5 s); the name and unknown members kept")
    func seenRateLimit() throws {
        let root = TemporaryDirectory().path
        let now = Now()
        let folder = FileSyncFolder(root: root, deviceID: { Self.this }, now: { now.date })
        let path = root + "/devices/\(Self.this)/device.json"
        #expect(try folder.recordSeen([:]) == false, "nothing seen: no file made")
        #expect(!FileManager.default.fileExists(atPath: path))
        try write(#"{"format":"retime.device","version":1,"name":"desk","seen":{},"color":"blue"}"#, path)
        let first = [Self.other: HybridTimestamp(milliseconds: 1_000, device: Self.other)]
        #expect(try folder.recordSeen(first))
        let second = [Self.other: HybridTimestamp(milliseconds: 2_000, device: Self.other)]
        // The file was written just now, by the wall clock: the injected
        // clock is set from its modification time so the test holds at any hour.
        let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        now.date = written.addingTimeInterval(FileSyncFolder.seenInterval / 2)
        #expect(try folder.recordSeen(second) == false, "within seenInterval of the last write")
        now.date = written.addingTimeInterval(FileSyncFolder.seenInterval + 1)
        #expect(try folder.recordSeen(second))
        #expect(try folder.recordSeen(second) == false, "unchanged")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(document?["name"] as? String == "desk" && document?["color"] as? String == "blue", "\(String(describing: document))")
        #expect((document?["seen"] as? [String: String])?[Self.other] == "2000-0-\(Self.other)")
    }

    @Test("a device's last change comes from the tails of its logs: a long log read only at its end, a torn last line left out")
    func tails() throws {
        let root = TemporaryDirectory().path
        let folder = FileSyncFolder(root: root, deviceID: { Self.this })
        var log = ""
        for index in 0..<20_000 {
            log += #"{"at":"\#(1_795_000_000_000 + Int64(index))-0-\#(Self.other)","key":"k","field":"f","value":\#(index)}"# + "\n"
        }
        log += #"{"at":"1799999999999-0-\#(Self.other)","ke"#   // torn: still being written
        try write(log, root + "/devices/\(Self.other)/changes/groups.jsonl")
        #expect(log.utf8.count > FileSyncFolder.tailBytes * 10)
        let survey = try folder.survey()
        let other = try #require(survey.devices.first { $0.id == Self.other })
        #expect(other.lastChange == HybridTimestamp(milliseconds: 1_795_000_019_999, device: Self.other))
        #expect(survey.unreadable.isEmpty, "a torn last line is not damage: \(survey.unreadable)")
    }

    @Test("unreadable: a damaged change line, a device.json that is not one, a symlinked device.json; conflict walk follows no symlink")
    func unreadable() throws {
        let root = TemporaryDirectory().path
        let outside = TemporaryDirectory().path
        let folder = FileSyncFolder(root: root, deviceID: { Self.this })
        try write("garbage\n", root + "/devices/\(Self.other)/changes/schedules.jsonl")
        try write(#"{"format":"retime.device","version":1,"seen":{"x y":"1"}}"#, root + "/devices/\(Self.other)/device.json")
        try write("{}", outside + "/device.json")
        try write("{}", outside + "/groups.sync-conflict-20261120-101010-ABC.json")
        try FileManager.default.createDirectory(atPath: root + "/devices/\(Self.this)", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/devices/\(Self.this)/device.json", withDestinationPath: outside + "/device.json")
        try FileManager.default.createSymbolicLink(atPath: root + "/elsewhere", withDestinationPath: outside)
        let survey = try folder.survey()
        #expect(survey.unreadable == ["devices/\(Self.other)/changes/schedules.jsonl", "devices/\(Self.other)/device.json",
                                      "devices/\(Self.this)/device.json"].sorted(), "\(survey.unreadable)")
        #expect(survey.conflicts.isEmpty, "\(survey.conflicts)")
        #expect(throws: StoreError.self) { try folder.deviceName() }
    }
}
