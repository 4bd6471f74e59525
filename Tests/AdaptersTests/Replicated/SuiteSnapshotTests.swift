import Adapters
import Domain
import Foundation
import JSONDocument
import Testing

/// A suite's merged values kept in a snapshot (`devices/<id>/snapshots/`)
/// are served to the next process only while every device's log holds
/// exactly the lines they were merged from: another device's log that grew,
/// was rewritten to the same size with its old time, or was replaced by a
/// new file (on a reused inode or not) is read, never the stale snapshot.
@Suite struct SuiteSnapshotTests {
    static let a = "aaaaaaaa-0000-4000-8000-000000000001"
    static let b = "bbbbbbbb-0000-4000-8000-000000000002"

    /// A fresh process's store of `device` on the folder.
    static func store(_ folder: String, _ device: String) -> ReplicatedLogStore {
        ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { Date() })
    }

    /// Device A's 40 groups (enough lines for a snapshot) and device B's one,
    /// named `name`; A has read the suite once, so its snapshot is there.
    static func folder(bName name: String = "aaaa") throws -> (folder: String, bLog: String, snapshot: String) {
        let folder = TemporaryDirectory().file("devices")
        try store(folder, a).update("groups") { values in
            for index in 0..<40 {
                values["group-\(index)"] = .object(["name": .string("group number \(index)"), "targets": .array([.string("site\(index).example.com")])])
            }
        }
        try store(folder, b).update("groups") { $0["b-group"] = .object(["name": .string(name)]) }
        let snapshot = folder + "/\(a)/snapshots/groups.json"
        _ = try store(folder, a).values(of: "groups")
        #expect(FileManager.default.fileExists(atPath: snapshot))
        return (folder, folder + "/\(b)/changes/groups.jsonl", snapshot)
    }

    static func bName(_ folder: String) throws -> JSONValue? {
        guard case .object(let members)? = try store(folder, a).values(of: "groups")["b-group"] else { return nil }
        return members["name"]
    }

    /// Sets a file's modification time back to `time` (what a sync tool
    /// does when it copies a file: the source's time).
    static func setModified(_ path: String, to time: timespec) {
        var times = [time, time]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    static func modified(_ path: String) -> (time: timespec, inode: UInt64) {
        var info = stat()
        _ = lstat(path, &info)
        return (info.st_mtim, UInt64(info.st_ino))
    }

    @Test func aSnapshotServesTheNextProcessWhileTheLogsAreAsItSaw() throws {
        let (folder, _, snapshot) = try Self.folder()
        let merged = try Self.store(folder, Self.a).values(of: "groups")
        #expect(merged.count == 41)
        // What the next process reads is the snapshot's: a value changed in
        // it (the logs untouched) is what comes back.
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        try text.replacingOccurrences(of: "group number 7\"", with: "from the snapshot\"").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let seven)? = try Self.store(folder, Self.a).values(of: "groups")["group-7"] else { Issue.record("no group-7"); return }
        #expect(seven["name"] == .string("from the snapshot"))
        // A torn or foreign snapshot is not used: the logs are.
        try "{\"format\":\"retime.snap".write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try Self.store(folder, Self.a).values(of: "groups") == merged)
    }

    @Test func anotherDevicesNewLineIsRead() throws {
        let (folder, _, _) = try Self.folder()
        try Self.store(folder, Self.b).update("groups") { $0["b-group"] = .object(["name": .string("renamed on b")]) }
        #expect(try Self.bName(folder) == .string("renamed on b"))
    }

    @Test func anotherDevicesLogRewrittenToTheSameSizeWithItsOldTimeIsRead() throws {
        let (folder, bLog, _) = try Self.folder(bName: "aaaa")
        let before = Self.modified(bLog)
        let text = try String(contentsOfFile: bLog, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: bLog))
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "\"aaaa\"", with: "\"bbbb\"").utf8))
        try handle.close()
        Self.setModified(bLog, to: before.time)
        let after = Self.modified(bLog)
        #expect(after.inode == before.inode && after.time.tv_sec == before.time.tv_sec && after.time.tv_nsec == before.time.tv_nsec)
        #expect(try Self.bName(folder) == .string("bbbb"))
    }

    @Test func anotherDevicesLogReplacedOnAReusedInodeIsRead() throws {
        let (folder, bLog, _) = try Self.folder(bName: "aaaa")
        let before = Self.modified(bLog)
        let text = try String(contentsOfFile: bLog, encoding: .utf8)
        // Removed, then written anew at once: file systems hand the freed
        // inode to the next file more often than not; either way, with the
        // same size and the old time.
        try FileManager.default.removeItem(atPath: bLog)
        #expect(FileManager.default.createFile(atPath: bLog, contents: Data(text.replacingOccurrences(of: "\"aaaa\"", with: "\"cccc\"").utf8)))
        Self.setModified(bLog, to: before.time)
        #expect(try Self.bName(folder) == .string("cccc"))
    }

    @Test func damageAfterTheLastLineOfALogIsStillReported() throws {
        let (folder, bLog, _) = try Self.folder()
        let handle = try #require(FileHandle(forWritingAtPath: bLog))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("xx".utf8))
        try handle.close()
        // Not served from the snapshot: A leaves B's log out and names it,
        // and B's own read is an error.
        #expect(try Self.store(folder, Self.a).values(of: "groups")["b-group"] == nil)
        #expect(try Self.store(folder, Self.a).unreadableLogs(of: "groups").map(\.path) == [bLog])
        #expect { try Self.store(folder, Self.b).values(of: "groups") } throws: { ($0 as? StoreError)?.code == "store.corrupted" }
    }

    @Test("the session slot from a snapshot: the values two devices wrote unseen, and the last value once deleted, as the merge says")
    func unseenAndLastValueFromASnapshot() throws {
        let folder = TemporaryDirectory().file("devices")
        // Two devices fill the slot before either saw the other (long
        // values: enough lines for a snapshot), then A empties it.
        let padding = String(repeating: "x", count: 3_000)
        try Self.store(folder, Self.a).update("session") { $0["current"] = .object(["id": .string("from-a"), "note": .string(padding)]) }
        let elsewhere = TemporaryDirectory().file("devices")
        try Self.store(elsewhere, Self.b).update("session") { $0["current"] = .object(["id": .string("from-b"), "note": .string(padding)]) }
        try FileManager.default.copyItem(atPath: elsewhere + "/" + Self.b, toPath: folder + "/" + Self.b)
        let merged = Self.store(folder, Self.a)
        let unseen = try merged.unseen("session", key: "current")
        #expect(unseen.count == 1)
        try merged.update("session") { $0["current"] = nil }
        let expected = (unseen: try Self.store(folder, Self.a).unseen("session", key: "current"),
                        last: try Self.store(folder, Self.a).lastValue("session", key: "current"))
        #expect(expected.last != nil)
        #expect(FileManager.default.fileExists(atPath: folder + "/\(Self.a)/snapshots/session.json"))
        // A fresh process answers from the snapshot, and the same.
        let served = Self.store(folder, Self.a)
        #expect(try served.unseen("session", key: "current") == expected.unseen)
        #expect(try served.lastValue("session", key: "current") == expected.last)
        #expect(try served.values(of: "session").isEmpty)
        // And once another device's write lands, from the logs again.
        try Self.store(folder, Self.b).update("session") { $0["current"] = .object(["id": .string("again-b")]) }
        #expect(try Self.store(folder, Self.a).lastValue("session", key: "current") == .object(["id": .string("again-b")]))
    }

    @Test("a slot emptied by another device is told from the snapshot, as the merge tells it, with no merge")
    func removedElsewhereFromASnapshot() throws {
        let folder = TemporaryDirectory().file("devices")
        let padding = String(repeating: "x", count: 5_000)   // enough lines for a snapshot
        let session = JSONValue.object(["id": .string("s1"), "note": .string(padding)])
        try Self.store(folder, Self.a).update("session") { $0["current"] = session }
        try Self.store(folder, Self.b).update("session") { $0["current"] = nil }
        #expect(try Self.store(folder, Self.a).valueRemovedElsewhere("session", key: "current") == session, "merged")
        let snapshot = folder + "/\(Self.a)/snapshots/session.json"
        #expect(FileManager.default.fileExists(atPath: snapshot))
        #expect(try Self.store(folder, Self.a).valueRemovedElsewhere("session", key: "current") == session, "served")
        // Served, not merged again: the snapshot's word is what comes back.
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        let said = "\"removedBy\":{\"current\":\"\(Self.b)\"}"
        #expect(text.contains(said), "\(text.prefix(300))")
        try text.replacingOccurrences(of: said, with: "\"removedBy\":{\"current\":\"\(Self.a)\"}")
            .write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try Self.store(folder, Self.a).valueRemovedElsewhere("session", key: "current") == nil)
    }

    @Test func aReadMakesNoFolderForADeviceThatHasNone() throws {
        let (folder, _, _) = try Self.folder()
        let c = "cccccccc-0000-4000-8000-000000000003"
        #expect(try Self.store(folder, c).values(of: "groups").count == 41)
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + c))
    }

    /// Before, only a read made a snapshot: the command after every write
    /// merged every device's log again.
    @Test("the process that changed a suite leaves its snapshot current when it is done, so the next process is served from it")
    func aWriterLeavesItsSnapshotCurrent() throws {
        let (folder, _, snapshot) = try Self.folder()
        let writer = Self.store(folder, Self.a)
        try writer.update("groups") { $0["group-7"] = .object(["name": .string("renamed"), "targets": .array([])]) }
        #expect(!(try String(contentsOfFile: snapshot, encoding: .utf8)).contains("\"renamed\""), "the old snapshot until the writer is done")
        writer.forgetParsedSuites()
        // Current for the next process: a value changed in the snapshot
        // file (the logs untouched) is what it reads.
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        #expect(text.contains("\"renamed\""), "the snapshot holds the write")
        try text.replacingOccurrences(of: "\"renamed\"", with: "\"from the snapshot\"").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let seven)? = try Self.store(folder, Self.a).values(of: "groups")["group-7"] else { Issue.record("no group-7"); return }
        #expect(seven["name"] == .string("from the snapshot"))
    }

    @Test("a snapshot written by the writer is never served once another device's log grows after it")
    func aWritersSnapshotIsNotServedStale() throws {
        let (folder, _, _) = try Self.folder()
        let writer = Self.store(folder, Self.a)
        try writer.update("groups") { $0["group-7"] = .object(["name": .string("renamed")]) }
        writer.forgetParsedSuites()
        try Self.store(folder, Self.b).update("groups") { $0["b-group"] = .object(["name": .string("after the snapshot")]) }
        #expect(try Self.bName(folder) == .string("after the snapshot"))
    }

    /// The folders are listed once per process while unchanged (a `stat`
    /// checks them at each read); one that changes is listed again.
    @Test("a store that keeps its listings still reads a device that joins, and a conflict copy that appears, after them")
    func keptListingsSeeNewLogs() throws {
        let (folder, _, _) = try Self.folder()
        let reader = Self.store(folder, Self.a)
        // A listing is kept only once its folder is older than the kernel's
        // file-time tick: wait (polling) until the folders are.
        let deadline = Date().addingTimeInterval(10)
        func settled() -> Bool {
            [folder, folder + "/\(Self.a)/changes", folder + "/\(Self.b)/changes"].allSatisfy { path in
                var info = stat()
                guard stat(path, &info) == 0 else { return false }
                return Date().timeIntervalSince1970 - (Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9) > 0.3
            }
        }
        while !settled(), Date() < deadline { usleep(20_000) }
        #expect(settled())
        #expect(try reader.values(of: "groups").count == 41)
        #expect(try reader.values(of: "groups").count == 41, "read again on the kept listings")
        let c = "cccccccc-0000-4000-8000-000000000003"
        try Self.store(folder, c).update("groups") { $0["c-group"] = .object(["name": .string("joined")]) }
        #expect(try reader.values(of: "groups")["c-group"] != nil, "a device that joined after the listing")
        // B's edit only in a conflict copy of its log (its log as before).
        let log = folder + "/\(Self.b)/changes/groups.jsonl", before = try Data(contentsOf: URL(fileURLWithPath: log))
        try Self.store(folder, Self.b).update("groups") { $0["b-group"] = .object(["name": .string("in conflict")]) }
        try FileManager.default.copyItem(atPath: log, toPath: folder + "/\(Self.b)/changes/groups.sync-conflict-20261124-000000-ABCDEFG.jsonl")
        try before.write(to: URL(fileURLWithPath: log))
        guard case .object(let b)? = try reader.values(of: "groups")["b-group"] else { Issue.record("no b-group"); return }
        #expect(b["name"] == .string("in conflict"), "a conflict copy that appeared after the listing")
    }

    /// Waits (polling, with a deadline) until every file and folder under
    /// `folder` last changed longer ago than the kernel's file-time tick,
    /// so a snapshot made now keeps its logs' stamps.
    static func settle(_ folder: String) {
        func settled() -> Bool {
            let paths = [folder] + (FileManager.default.subpaths(atPath: folder) ?? []).map { folder + "/" + $0 }
            return paths.allSatisfy { path in
                var info = stat()
                guard lstat(path, &info) == 0 else { return true }
                return Date().timeIntervalSince1970 - (Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9) > 0.3
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while !settled(), Date() < deadline { usleep(20_000) }
    }

    /// A snapshot made from logs that had settled keeps their stamps and
    /// checks them instead of reading the logs; a change moves the change
    /// time, which nothing can set back, so it is read.
    @Test("a snapshot of settled logs is checked by their stamps, and a log rewritten to the same size with its old time is still read")
    func settledStampsServeAndStillCatchARewrite() throws {
        let (folder, bLog, snapshot) = try Self.folder()
        try FileManager.default.removeItem(atPath: snapshot)
        Self.settle(folder)
        #expect(try Self.store(folder, Self.a).values(of: "groups").count == 41)
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        #expect(text.contains("\"changed\":"), "the sources' stamps are kept: \(text.prefix(300))")
        // Served from the snapshot on the stamps.
        try text.replacingOccurrences(of: "group number 7\"", with: "from the snapshot\"").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let seven)? = try Self.store(folder, Self.a).values(of: "groups")["group-7"] else { Issue.record("no group-7"); return }
        #expect(seven["name"] == .string("from the snapshot"))
        // B's log rewritten in place to the same size, its time set back.
        let before = Self.modified(bLog)
        let old = try String(contentsOfFile: bLog, encoding: .utf8)
        #expect(old.contains("\"aaaa\""))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: bLog))
        try handle.write(contentsOf: Data(old.replacingOccurrences(of: "\"aaaa\"", with: "\"bbbb\"").utf8))
        try handle.close()
        Self.setModified(bLog, to: before.time)
        #expect(Self.modified(bLog).inode == before.inode)
        #expect(try Self.bName(folder) == .string("bbbb"))
    }

    /// A snapshot made right after a sync tool wrote the logs cannot keep
    /// their stamps (a change within the file-time tick may not move them),
    /// so every read hashed every log again, for as long as the snapshot
    /// stayed current. The first read after they settle keeps them.
    @Test("a snapshot made before its logs settled takes their stamps at the first read after, and a rewrite is still read")
    func unsettledSourcesAreStampedOnceSettled() throws {
        let (folder, bLog, snapshot) = try Self.folder()
        let logs = [folder + "/\(Self.a)/changes/groups.jsonl", bLog]
        // The logs just changed (their change time is now), the snapshot
        // made at once: it names no stamp. Tried again if the machine was
        // too slow to make it within the tick.
        for _ in 0..<20 {
            try FileManager.default.removeItem(atPath: snapshot)
            for log in logs { chmod(log, 0o600) }
            #expect(try Self.store(folder, Self.a).values(of: "groups").count == 41)
            if try !String(contentsOfFile: snapshot, encoding: .utf8).contains("\"changed\":") { break }
        }
        #expect(try !String(contentsOfFile: snapshot, encoding: .utf8).contains("\"changed\":"))
        Self.settle(folder)
        #expect(try Self.store(folder, Self.a).values(of: "groups").count == 41)
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        #expect(text.components(separatedBy: "\"changed\":").count == 3, "both logs' stamps are kept now: \(text.prefix(400))")
        // Served from it on the stamps: a value changed in it is what comes back.
        try text.replacingOccurrences(of: "group number 7\"", with: "from the snapshot\"").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let seven)? = try Self.store(folder, Self.a).values(of: "groups")["group-7"] else { Issue.record("no group-7"); return }
        #expect(seven["name"] == .string("from the snapshot"))
        // B's log rewritten in place to the same size, its time set back: read.
        let before = Self.modified(bLog)
        let old = try String(contentsOfFile: bLog, encoding: .utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: bLog))
        try handle.write(contentsOf: Data(old.replacingOccurrences(of: "\"aaaa\"", with: "\"bbbb\"").utf8))
        try handle.close()
        Self.setModified(bLog, to: before.time)
        #expect(try Self.bName(folder) == .string("bbbb"))
    }

    /// A snapshot's values are read one by one when asked for: one of
    /// them, changed in the snapshot, is what a read of that key answers;
    /// one that does not read (a number out of range, which its structure
    /// check lets by) sends the read to the logs, and the snapshot is made
    /// again from them.
    @Test("values narrowed to some members from the snapshot are the merged values narrowed; a member that does not read sends the read to the logs")
    func narrowedValuesFromTheSnapshot() throws {
        let (folder, _, snapshot) = try Self.folder()
        try Self.store(folder, Self.a).update("groups") { $0["plain"] = .string("no object") }
        Self.store(folder, Self.a).forgetParsedSuites()
        _ = try Self.store(folder, Self.a).values(of: "groups")
        let merged = try Self.store(folder, Self.b).values(of: "groups").mapValues { $0.narrowed(to: ["name"]) }
        #expect(merged.count == 42 && merged["plain"] == .string("no object"))
        #expect(try Self.store(folder, Self.a).values(of: "groups", members: ["name"]) == merged)
        #expect(try Self.store(folder, Self.a).storedValue(forKey: "group-3", in: "groups", members: ["name"]) == merged["group-3"])
        // A name that does not read (a hand edit: a number no Double holds)
        // is no answer: the logs are read.
        try String(contentsOfFile: snapshot, encoding: .utf8).replacingOccurrences(of: "\"group number 3\"", with: "1e999")
            .write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try Self.store(folder, Self.a).values(of: "groups", members: ["name"]) == merged)
        #expect(try Self.store(folder, Self.a).storedValue(forKey: "group-3", in: "groups", members: ["name"]) == merged["group-3"])
    }

    @Test("one value is read alone from the snapshot; a value in it that does not read sends the read to the logs")
    func oneValueFromTheSnapshot() throws {
        let (folder, _, snapshot) = try Self.folder()
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
        try text.replacingOccurrences(of: "group number 7\"", with: "from the snapshot\"").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let seven)? = try Self.store(folder, Self.a).storedValue(forKey: "group-7", in: "groups") else {
            Issue.record("no group-7"); return
        }
        #expect(seven["name"] == .string("from the snapshot"))
        #expect(try Self.store(folder, Self.a).storedValue(forKey: "no-such-group", in: "groups") == nil)
        // Group 8's name a number no Double holds: JSON in shape, not in value.
        try text.replacingOccurrences(of: "\"group number 8\"", with: "1e999").write(toFile: snapshot, atomically: true, encoding: .utf8)
        let store = Self.store(folder, Self.a)
        guard case .object(let eight)? = try store.storedValue(forKey: "group-8", in: "groups") else { Issue.record("no group-8"); return }
        #expect(eight["name"] == .string("group number 8"), "from the logs")
        #expect(try store.values(of: "groups").count == 41)
        #expect(try !String(contentsOfFile: snapshot, encoding: .utf8).contains("1e999"), "the snapshot made again")
        try text.replacingOccurrences(of: "\"group number 8\"", with: "1e999").write(toFile: snapshot, atomically: true, encoding: .utf8)
        guard case .object(let all)? = try Self.store(folder, Self.a).values(of: "groups")["group-8"] else { Issue.record("no group-8"); return }
        #expect(all["name"] == .string("group number 8"), "every value, from the logs")
    }

    /// The sources are read straight into their values: one that lacks its
    /// hash (or is no object) makes the snapshot unusable, as a torn one.
    @Test("a snapshot whose sources lack a hash or hold a stranger is not used; one with members it does not know is")
    func sourcesRead() throws {
        let (folder, _, snapshot) = try Self.folder()
        let text = try String(contentsOfFile: snapshot, encoding: .utf8)
            .replacingOccurrences(of: "group number 7\"", with: "from the snapshot\"")
        func seven() throws -> JSONValue? {
            guard case .object(let seven)? = try Self.store(folder, Self.a).values(of: "groups")["group-7"] else { return nil }
            return seven["name"]
        }
        let unknown = text.replacingOccurrences(of: "\"sources\":[{", with: "\"sources\":[{\"later\":{\"a\":[1]},")
        try unknown.write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try seven() == .string("from the snapshot"), "a member it does not know is passed over")
        let hashless = try #require(text.range(of: #""hash":"[0-9a-f]+","#, options: .regularExpression))
        try text.replacingCharacters(in: hashless, with: "").write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try seven() == .string("group number 7"), "no hash: the logs")
        try text.replacingOccurrences(of: "\"sources\":[", with: "\"sources\":[7,").write(toFile: snapshot, atomically: true, encoding: .utf8)
        #expect(try seven() == .string("group number 7"), "a source that is no object: the logs")
    }
}
