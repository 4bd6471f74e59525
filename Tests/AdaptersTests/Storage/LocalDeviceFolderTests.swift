#if canImport(Glibc)
import Glibc
#endif
@testable import Adapters
import Foundation
import Testing

/// Moving the machine's files of the old layout into `devices/<id>/`: every
/// state a crash can leave is finished by the next run, and a file is never
/// replaced (docs/storage.md, "Devices").
@Suite struct LocalDeviceFolderTests {
    let root = TemporaryDirectory().file("data")

    func write(_ text: String, _ relative: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: root + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    var folder: LocalDeviceFolder {
        let root = root
        return LocalDeviceFolder(deviceID: { "dev" }, moves: { id in
            [.init(from: root, to: root + "/devices/" + id, name: "events.jsonl", rotations: true),
             .init(from: root + "/store", to: root + "/devices/" + id + "/store", name: "shield.json")]
        })
    }

    @Test("a file and its rotations move; names that only look like rotations stay")
    func movesRotations() throws {
        try write("0", "events.jsonl")
        try write("1", "events.jsonl.1")
        try write("x", "events.jsonl.bak")
        try write("s", "store/shield.json")
        #expect(try folder.id() == "dev")
        #expect(read("devices/dev/events.jsonl") == "0" && read("devices/dev/events.jsonl.1") == "1" && read("devices/dev/store/shield.json") == "s")
        #expect(read("events.jsonl") == nil && read("events.jsonl.1") == nil && read("store/shield.json") == nil)
        #expect(read("events.jsonl.bak") == "x")
    }

    @Test("a crash between linking the new name and unlinking the old (one inode, two names) is finished")
    func crashBetweenLinkAndUnlink() throws {
        try write("s", "store/shield.json")
        try FileManager.default.createDirectory(atPath: root + "/devices/dev/store", withIntermediateDirectories: true)
        #expect(link(root + "/store/shield.json", root + "/devices/dev/store/shield.json") == 0)
        _ = try folder.id()
        #expect(read("devices/dev/store/shield.json") == "s" && read("store/shield.json") == nil)
    }

    @Test("a new name already holding another file is never replaced, and the old file is kept")
    func neverReplaces() throws {
        try write("old", "store/shield.json")
        try write("new", "devices/dev/store/shield.json")
        _ = try folder.id()
        #expect(read("devices/dev/store/shield.json") == "new" && read("store/shield.json") == "old")
    }

    @Test("a directory where a file was is left for doctor, not moved")
    func irregularStays() throws {
        try FileManager.default.createDirectory(atPath: root + "/events.jsonl", withIntermediateDirectories: true)
        _ = try folder.id()
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root + "/events.jsonl", isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}
