#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import Testing

@Suite("JSONFileStore on real files")
struct JSONFileStoreTests {
    let directory = TemporaryDirectory()
    var storeDirectory: String { directory.file("store") }
    var store: JSONFileStore { JSONFileStore(directory: storeDirectory, lockTimeout: 0.3) }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("the directory is made 0700, data and lock files 0600, and the file says what it is")
    func layoutAndModes() throws {
        try store.set("hosts", forKey: "shield", in: "config")
        #expect(try mode(storeDirectory) == 0o700)
        #expect(try mode(storeDirectory + "/config.json") == 0o600)
        #expect(try mode(storeDirectory + "/config.lock") == 0o600)
        let text = try String(contentsOfFile: storeDirectory + "/config.json", encoding: .utf8)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(json?["format"] as? String == "retime.suite")
        #expect(json?["version"] as? Int == 1)
        #expect((json?["values"] as? [String: Any])?["shield"] as? String == "hosts")
    }

    static let damaged: [(String, [UInt8])] = [
        ("empty", []),
        ("NUL-filled", [UInt8](repeating: 0, count: 512)),
        ("truncated", Array(#"{"format":"retime.suite","version":1,"values":{"a":"#.utf8)),
        ("not JSON", Array("hello\n".utf8)),
        ("another format", Array(#"{"format":"other","version":1,"values":{}}"#.utf8)),
        ("missing values", Array(#"{"format":"retime.suite","version":1}"#.utf8)),
    ]

    @Test("a damaged file is a typed error naming it, and stays byte-for-byte as it was", arguments: damaged.map(\.0))
    func damagedFile(kind: String) throws {
        let bytes = try #require(Self.damaged.first { $0.0 == kind }?.1)
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
        let path = storeDirectory + "/config.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        for attempt in [{ _ = try store.values(of: "config") }, { try store.set("x", forKey: "k", in: "config") }] {
            let error = try #require(throws: StoreError.self) { try attempt() }
            guard case .corrupted(let named, _) = error else { Issue.record("\(error)"); continue }
            #expect(named == path)
            #expect(error.kind == .storage)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }

    @Test("a file from a newer retime is refused and kept")
    func newerVersion() throws {
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
        let path = storeDirectory + "/config.json"
        let bytes = Data(#"{"format":"retime.suite","version":9,"values":{}}"#.utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
        #expect(throws: StoreError.unsupportedVersion(path: path, version: 9)) { try store.set(1, forKey: "k", in: "config") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test("a symbolic link where a data file should be is refused, and its target left alone")
    func symlinkRefused() throws {
        try store.set(1, forKey: "k", in: "config")
        let target = directory.file("elsewhere.json")
        let original = Data("precious".utf8)
        #expect(FileManager.default.createFile(atPath: target, contents: original))
        let path = storeDirectory + "/groups.json"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(throws: StoreError.symlinkRefused(path: path)) { _ = try store.values(of: "groups") }
        #expect(throws: StoreError.symlinkRefused(path: path)) { try store.set(1, forKey: "k", in: "groups") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == original)
    }

    @Test("the last three good generations are kept as backups, newest first")
    func backups() throws {
        for generation in 1...5 { try store.set(generation, forKey: "n", in: "config") }
        let backups = try store.backupPaths(of: "config")
        #expect(backups.count == 3)
        let generations = try backups.map { path -> Int? in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            return (object?["values"] as? [String: Any])?["n"] as? Int
        }
        #expect(generations == [4, 3, 2])
        #expect(try store.value(Int.self, forKey: "n", in: "config") == 5)
    }

    @Test("a lock held too long gives a timeout error, not a hang; then the store works again")
    func lockTimeout() throws {
        try store.set(1, forKey: "n", in: "config")
        let fd = open(storeDirectory + "/config.lock", O_RDWR)
        #expect(flock(fd, LOCK_EX) == 0)
        let started = Date()
        #expect(throws: StoreError.lockTimeout(path: storeDirectory + "/config.lock", seconds: 0.3)) {
            try store.set(2, forKey: "n", in: "config")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try store.value(Int.self, forKey: "n", in: "config") == 1)
        close(fd)
        try store.set(2, forKey: "n", in: "config")
        #expect(try store.value(Int.self, forKey: "n", in: "config") == 2)
    }

    @Test("defaults never reach the file; another store instance does not see them")
    func defaultsNotPersisted() throws {
        let first = store
        first.register(defaults: ["level": .string("info")], in: "config")
        try first.set("hosts", forKey: "shield", in: "config")
        let text = try String(contentsOfFile: storeDirectory + "/config.json", encoding: .utf8)
        #expect(!text.contains("level"))
        #expect(try store.value(String.self, forKey: "level", in: "config") == nil)
    }

    @Test("the stamp changes with every write and not without one")
    func stamps() throws {
        #expect(try store.stamp(of: "config") == nil)
        try store.set(1, forKey: "n", in: "config")
        let first = try #require(try store.stamp(of: "config"))
        try store.update("config") { _ in }
        #expect(try store.stamp(of: "config") == first)
        try store.set(2, forKey: "n", in: "config")
        #expect(try store.stamp(of: "config") != first)
    }

    @Test("a read after the file changed behind the store sees the change: replaced, edited in place, damaged or removed")
    func readsFollowTheFile() throws {
        let reader = store   // one instance: its parsed copy must not outlive the file's version
        try store.set(1, forKey: "n", in: "config")
        #expect(try reader.value(Int.self, forKey: "n", in: "config") == 1)
        try JSONFileStore(directory: storeDirectory).set(2, forKey: "n", in: "config")
        #expect(try reader.value(Int.self, forKey: "n", in: "config") == 2)

        // The same size, written in place (as an editor that does not rename).
        let path = storeDirectory + "/config.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let fd = open(path, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        let edited = Array(text.replacingOccurrences(of: "\"n\" : 2", with: "\"n\" : 7").utf8)
        #expect(edited.count == text.utf8.count)
        #expect(write(fd, edited, edited.count) == edited.count)
        close(fd)
        #expect(try reader.value(Int.self, forKey: "n", in: "config") == 7)

        #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8)))
        #expect(throws: StoreError.self) { try reader.values(of: "config") }
        try FileManager.default.removeItem(atPath: path)
        #expect(try reader.values(of: "config").isEmpty)
    }

    @Test("an update starts from the file, never from a copy read earlier: 20 instances' increments all land")
    func updatesReadTheFile() async throws {
        let stores = (0..<20).map { _ in JSONFileStore(directory: storeDirectory) }
        for store in stores { _ = try store.values(of: "config") }   // every instance holds a parsed (empty) copy
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for _ in 0..<5 {
                        try store.update("config") { values in
                            guard case .int(let count)? = values["n"] ?? .int(0) else { return }
                            values["n"] = .int(count + 1)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.value(Int.self, forKey: "n", in: "config") == 100)
        #expect(try stores[0].value(Int.self, forKey: "n", in: "config") == 100)
    }
}
