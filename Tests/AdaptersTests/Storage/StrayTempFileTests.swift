import Adapters
import Foundation
import Testing

/// `doctor` lists, and `--repair` removes, only temp files a dead writer
/// left: a live write's temp file is never another process's to delete.
@Suite("Stray temp files of interrupted writes")
struct StrayTempFileTests {
    let directory = TemporaryDirectory()

    /// Creates `name` in the directory, last modified `age` seconds ago.
    func make(_ name: String, age: TimeInterval) {
        let path = directory.file(name)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
        let then = Date().addingTimeInterval(-age)
        try? FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
    }

    @Test("the store's: temp copies of suite files a minute old or more; not a live write's, not other files")
    func store() {
        make("groups.json.tmp-123-456", age: 3_600)
        make("session.json.tmp-9-9", age: 61)
        make("config.json.tmp-77-1", age: 1)             // a write in progress
        make("groups.json", age: 3_600)
        make("notes.txt.tmp-1-1", age: 3_600)             // not one of ours
        let store = JSONFileStore(directory: directory.path)
        #expect(store.strayTempFiles() == [directory.file("groups.json.tmp-123-456"), directory.file("session.json.tmp-9-9")])
    }

    @Test("the hosts file's: copies of that file only, a minute old or more")
    func hosts() {
        make("hosts", age: 3_600)
        make("hosts.tmp-5-5", age: 120)
        make("hosts.tmp-6-6", age: 0)                      // a write in progress
        make("hosts.allow.tmp-7-7", age: 120)              // another file's
        #expect(HostsFileShield(path: directory.file("hosts")).strayTempFiles() == [directory.file("hosts.tmp-5-5")])
    }
}
