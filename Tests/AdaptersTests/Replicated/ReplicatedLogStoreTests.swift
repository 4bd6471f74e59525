import Adapters
import Domain
import Foundation
import JSONDocument
import PortContracts
import Testing

/// Devices sharing a data folder: each writes only its own logs, and every
/// device reads the same merged state, whatever a sync tool copied when.
@Suite struct ReplicatedLogStoreTests {
    static let a = "aaaaaaaa-0000-4000-8000-000000000001"
    static let b = "bbbbbbbb-0000-4000-8000-000000000002"
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    static func store(_ folder: String, _ device: String, now: Date = t0) -> ReplicatedLogStore {
        ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { now })
    }

    /// What a sync tool does: every file of `from` that `to` lacks or holds
    /// less of is copied over (logs only grow).
    static func sync(_ from: String, to: String) throws {
        let files = FileManager.default
        for device in (try? files.contentsOfDirectory(atPath: from)) ?? [] {
            let source = from + "/" + device + "/changes", target = to + "/" + device + "/changes"
            try files.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try files.contentsOfDirectory(atPath: source) {
                let data = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
                let existing = (try? Data(contentsOf: URL(fileURLWithPath: target + "/" + name))) ?? Data()
                if data.count > existing.count { try data.write(to: URL(fileURLWithPath: target + "/" + name), options: .atomic) }
            }
        }
    }

    @Test func aRenameOnOneDeviceAndANewTargetOnTheOtherBothHold() async throws {
        let laptop = TemporaryDirectory().file("devices"), desktop = TemporaryDirectory().file("devices")
        let groupsA = StoreGroupRepository(store: Self.store(laptop, Self.a))
        let work = Group(name: try GroupName("work"), targets: [try Target(parsing: "news.com")], createdAt: Self.t0)
        try await groupsA.insert(work)
        try Self.sync(laptop, to: desktop)

        // Concurrently: a rename on the laptop, a target on the desktop.
        var renamed = try #require(try await groupsA.group(id: work.id))
        renamed.name = try GroupName("deep")
        try await groupsA.update(renamed)
        let groupsB = StoreGroupRepository(store: Self.store(desktop, Self.b, now: Self.t0.addingTimeInterval(60)))
        var blocked = try #require(try await groupsB.group(id: work.id))
        blocked.add([try Target(parsing: "slack.com")])
        try await groupsB.update(blocked)

        try Self.sync(laptop, to: desktop)
        try Self.sync(desktop, to: laptop)
        for folder in [laptop, desktop] {
            let merged = try #require(try await StoreGroupRepository(store: Self.store(folder, Self.a)).group(id: work.id))
            #expect(merged.name.rawValue == "deep")
            #expect(merged.targets.map(\.description) == ["news.com", "slack.com"])
        }
        // Each device wrote only its own log.
        #expect(FileManager.default.fileExists(atPath: laptop + "/" + Self.a + "/changes/groups.jsonl"))
        #expect(FileManager.default.fileExists(atPath: desktop + "/" + Self.b + "/changes/groups.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: laptop + "/" + Self.b + "/changes/groups.jsonl.tmp"))
    }

    /// Device b's clock runs a year fast. An edit made on a after it had
    /// read b's still wins: the order is the hybrid clock's, not b's clock's.
    @Test func aFastClockDoesNotWinALaterEdit() throws {
        let folder = TemporaryDirectory().file("devices")
        try Self.store(folder, Self.b, now: Self.t0.addingTimeInterval(365 * 86_400)).set("fast", forKey: "defaultGroup", in: "config")
        try Self.store(folder, Self.a, now: Self.t0).set("mine", forKey: "defaultGroup", in: "config")
        #expect(try Self.store(folder, Self.b).value(String.self, forKey: "defaultGroup", in: "config") == "mine")
    }

    @Test func aConflictCopyIsMergedAndASyncToolsTemporaryFileIsNot() throws {
        let folder = TemporaryDirectory().file("devices")
        let store = Self.store(folder, Self.a)
        try store.set("on", forKey: "notify", in: "config")
        let changes = folder + "/" + Self.a + "/changes/"
        let copy = "{\"at\":\"1795000000000-5-\(Self.a)\",\"key\":\"defaultGroup\",\"value\":\"deep\"}\n"
        try copy.write(toFile: changes + "config.sync-conflict-20261124-120000-ABCDEFG.jsonl", atomically: true, encoding: .utf8)
        try "garbage, half copied".write(toFile: changes + ".syncthing.config.jsonl.tmp", atomically: true, encoding: .utf8)
        try "garbage".write(toFile: changes + "~syncthing~config.jsonl.tmp", atomically: true, encoding: .utf8)
        #expect(try Self.store(folder, Self.b).values(of: "config") == ["notify": .string("on"), "defaultGroup": .string("deep")])
    }

    @Test func aTornLastLineIsNotReadAndTheNextWriteStartsAfterIt() throws {
        let folder = TemporaryDirectory().file("devices")
        try Self.store(folder, Self.a).set("on", forKey: "notify", in: "config")
        let log = folder + "/" + Self.a + "/changes/config.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: log))
        handle.seekToEndOfFile()
        handle.write(Data("{\"at\":\"17950".utf8))
        handle.closeFile()
        #expect(try Self.store(folder, Self.b).values(of: "config") == ["notify": .string("on")])
        try Self.store(folder, Self.a, now: Self.t0.addingTimeInterval(1)).set("off", forKey: "notify", in: "config")
        #expect(try Self.store(folder, Self.b).values(of: "config") == ["notify": .string("off")])
    }

    /// semantics.md, "A peer's damage is not mine": another device's log
    /// that does not read is left out of the merge, whole (not the lines
    /// before the damage), and named; the same log is its own device's
    /// error, naming the file and line; the file stays as it was.
    @Test func aDamagedLineIsLeftOutByOthersAndAnErrorToItsOwnDevice() throws {
        let folder = TemporaryDirectory().file("devices")
        try Self.store(folder, Self.a).set("on", forKey: "notify", in: "config")
        let log = folder + "/" + Self.b + "/changes/config.jsonl"
        try FileManager.default.createDirectory(atPath: folder + "/" + Self.b + "/changes", withIntermediateDirectories: true)
        let damaged = Data("{\"at\":\"1-0-\(Self.b)\",\"key\":\"notify\",\"value\":\"off\"}\n{\"at\":12}\n".utf8)
        try damaged.write(to: URL(fileURLWithPath: log))
        let a = Self.store(folder, Self.a)
        #expect(try a.values(of: "config") == ["notify": .string("on")])
        #expect(try a.unreadableLogs(of: "config").map { $0.path } == [log])
        #expect {
            try Self.store(folder, Self.b).values(of: "config")
        } throws: { error in
            guard case StoreError.corrupted(let path, let reason)? = error as? StoreError else { return false }
            return path == log && reason.hasPrefix("line 2:")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == damaged)
        // Mended there, it is merged again.
        try Data("{\"at\":\"1-0-\(Self.b)\",\"key\":\"notify\",\"value\":\"off\"}\n".utf8).write(to: URL(fileURLWithPath: log))
        #expect(try Self.store(folder, Self.a).values(of: "config") == ["notify": .string("on")])
        #expect(try Self.store(folder, Self.a).unreadableLogs(of: "config").isEmpty)
    }

    @Test("20 processes x 50 increments on one device keep all 1,000")
    func concurrentIncrements() throws {
        let folder = TemporaryDirectory().file("devices")
        let probes = try (0..<20).map { _ in try ProbeProcess(["increment-shared", folder, Self.a, "50"]) }
        #expect(probes.map { $0.wait() }.allSatisfy { $0 == 0 })
        #expect(try Self.store(folder, Self.b).values(of: "counter")["n"] == .int(1_000))
    }

    @Test func aDeletedRecordMadeAgainStartsClean() throws {
        let folder = TemporaryDirectory().file("devices")
        let store = Self.store(folder, Self.a)
        try store.update("groups") { $0["g"] = .object(["name": .string("work"), "targets": .array([.string("x.com")]), "note": .string("n")]) }
        try store.update("groups") { $0["g"] = nil }
        #expect(try store.values(of: "groups").isEmpty)
        try store.update("groups") { $0["g"] = .object(["name": .string("again"), "targets": .array([])]) }
        #expect(try Self.store(folder, Self.b).values(of: "groups")["g"] == .object(["name": .string("again"), "targets": .array([])]))
    }

    @Test("the session slot emptied on another device is told apart from one this device emptied (a block to lower here)")
    func aValueRemovedElsewhereIsToldApart() throws {
        let folder = TemporaryDirectory().file("devices")
        let a = Self.store(folder, Self.a), b = Self.store(folder, Self.b)
        let session = JSONValue.object(["id": .string("s1")])
        try a.update("session") { $0["current"] = session }
        #expect(try a.valueRemovedElsewhere("session", key: "current") == nil && b.valueRemovedElsewhere("session", key: "current") == nil,
                "held: removed nowhere")
        try b.update("session") { $0["current"] = nil }
        #expect(try a.valueRemovedElsewhere("session", key: "current") == session, "B emptied it: elsewhere, seen from A")
        #expect(try b.valueRemovedElsewhere("session", key: "current") == nil, "B emptied it itself")
        try a.update("session") { $0["current"] = session }
        try a.update("session") { $0["current"] = nil }
        #expect(try a.valueRemovedElsewhere("session", key: "current") == nil, "A's own later removal")
    }
}

/// A device drops the lines of its own log that its later lines supersede:
/// the merged state, on every device, is exactly what the whole log gives.
@Suite struct ChangeLogCompactionTests {
    static let a = ReplicatedLogStoreTests.a, b = ReplicatedLogStoreTests.b

    @Test("300 writes of sessions, groups and settings with another device's lines among them: compacted or not, the same state; the log stays short")
    func compactedLogMergesTheSame() throws {
        let compacted = TemporaryDirectory().file("devices"), whole = TemporaryDirectory().file("devices")
        var generator = SystemRandomNumberGenerator()
        var other: [UInt8] = []
        for step in 0..<300 {
            let instant = ReplicatedLogStoreTests.t0.addingTimeInterval(Double(step))
            let stores = [ReplicatedLogStore.dataFolder(devices: compacted, deviceID: { Self.a }, now: { instant }),
                          ReplicatedLogStore.dataFolder(devices: whole, deviceID: { Self.a }, now: { instant }, compactionInterval: 0)]
            let roll = Int.random(in: 0..<6, using: &generator), key = "k\(Int.random(in: 0..<4, using: &generator))"
            let target = JSONValue.string("t\(Int.random(in: 0..<5, using: &generator))")
            for store in stores {
                switch roll {
                case 0: try store.update("session") { $0["current"] = .object(["id": .string("s\(step)"), "step": .int(Int64(step))]) }
                case 1: try store.update("session") { $0["current"] = nil }
                case 2: try store.update("groups") { values in
                    var group: [String: JSONValue] = ["targets": .array([])]
                    if case .object(let existing)? = values[key] { group = existing }
                    group["name"] = .string("n\(step)")
                    values[key] = .object(group)
                }
                case 3: try store.update("groups") { values in
                    guard case .object(var group)? = values[key], case .array(var targets)? = group["targets"] else { return }
                    if let at = targets.firstIndex(of: target) { targets.remove(at: at) } else { targets.append(target) }
                    group["targets"] = .array(targets)
                    values[key] = .object(group)
                }
                case 4: try store.update("groups") { $0[key] = nil }
                default: try store.set("v\(step)", forKey: key, in: "config")
                }
                store.forgetParsedSuites()   // the end of a command: a compaction due happens here
            }
            // Another device's line now and then, in both folders alike.
            if step % 7 == 0 {
                let line = "{\"at\":\"\(1_795_000_000_000 + Int64(step) * 1_000 + 500)-0-\(Self.b)\",\"key\":\"\(key)\",\"changes\":[{\"add\":\"targets\",\"value\":\"b\(step)\"}]}\n"
                other += Array(line.utf8)
                for folder in [compacted, whole] {
                    try FileManager.default.createDirectory(atPath: folder + "/\(Self.b)/changes", withIntermediateDirectories: true)
                    try Data(other).write(to: URL(fileURLWithPath: folder + "/\(Self.b)/changes/groups.jsonl"))
                }
            }
        }
        let reader = { (folder: String) in ReplicatedLogStore.dataFolder(devices: folder, deviceID: { Self.b }, now: { Date() }) }
        for suite in ["session", "groups", "config"] {
            #expect(try reader(compacted).values(of: suite) == reader(whole).values(of: suite), "\(suite)")
        }
        #expect(try reader(compacted).unseen("session", key: "current") == reader(whole).unseen("session", key: "current"))
        let lines = { (folder: String) in
            (try? String(contentsOfFile: folder + "/\(Self.a)/changes/session.jsonl", encoding: .utf8))?.split(separator: "\n").count ?? 0
        }
        #expect(lines(compacted) < 70 && lines(whole) > 40, "compacted \(lines(compacted)), whole \(lines(whole))")
    }

    /// A line of this device's log that replaced another device's value
    /// (`over`) is superseded by this device's later values, but what it
    /// said, that the other value was replaced knowingly, must outlive it.
    @Test("another device's value replaced here is not read as replaced unseen once this device's log is compacted")
    func acknowledgmentOutlivesItsLine() throws {
        for copies in [false, true] {
            let folder = TemporaryDirectory().file("devices")
            let store = { (device: String) in ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { Date() }) }
            // One write per process, each process ending as a command does.
            let write = { (device: String, value: JSONValue?) in
                let process = store(device)
                try process.update("session") { $0["current"] = value }
                process.forgetParsedSuites()
            }
            try write(Self.b, .object(["id": .string("b's")]))
            try write(Self.a, .object(["id": .string("b's"), "ended": .bool(true)]))
            try write(Self.a, nil)
            for round in 0..<6 {
                try write(Self.a, .object(["id": .string("a's \(round)")]))
                if copies && round == 0 {
                    // A conflict copy of A's log holding A's own first value,
                    // which A's later lines replace knowingly.
                    let changes = folder + "/\(Self.a)/changes"
                    try FileManager.default.copyItem(atPath: changes + "/session.jsonl",
                                                     toPath: changes + "/session.sync-conflict-20261128-000000-AAAAAAA.jsonl")
                }
                try write(Self.a, nil)
            }
            let log = try String(contentsOfFile: folder + "/\(Self.a)/changes/session.jsonl", encoding: .utf8)
            #expect(log.split(separator: "\n").count < 14, "compacted: \(log)")
            for device in [Self.a, Self.b] {
                #expect(try store(device).unseen("session", key: "current") == [], "copies \(copies)")
                #expect(try store(device).values(of: "session")["current"] == nil)
            }
        }
    }

    /// The acknowledgments a compaction keeps are themselves let go once no
    /// log holds the value they name: a device that stops another's
    /// sessions kept one `seen` line per session stopped, for ever.
    @Test("a device that stops another device's sessions keeps a short log, and nothing it stopped comes back")
    func stoppingAnothersSessionsKeepsALogShort() throws {
        let folder = TemporaryDirectory().file("devices")
        let write = { (device: String, value: JSONValue?) in
            let process = ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { Date() })
            try process.update("session") { $0["current"] = value }
            process.forgetParsedSuites()
        }
        var longest = 0
        for round in 0..<40 {
            try write(Self.b, .object(["id": .string("b's \(round)")]))
            try write(Self.a, .object(["id": .string("b's \(round)"), "ended": .bool(true)]))
            try write(Self.a, nil)
            let log = try String(contentsOfFile: folder + "/\(Self.a)/changes/session.jsonl", encoding: .utf8)
            longest = max(longest, log.split(separator: "\n").count)
        }
        // A's own few lines, and a `seen` line for each of B's values that
        // B's log still holds (at most what B keeps between compactions).
        #expect(longest <= 2 * ReplicatedLogStore.sessionCompactionInterval + 3, "\(longest) lines")
        for device in [Self.a, Self.b] {
            let store = ReplicatedLogStore.dataFolder(devices: folder, deviceID: { device }, now: { Date() })
            #expect(try store.unseen("session", key: "current") == [])
            #expect(try store.values(of: "session")["current"] == nil)
        }
    }

    /// Each line of the slot's log is a whole session, and the first write
    /// of a `start` or `stop` merges them all: with 64 lines between
    /// compactions a `stop` ran 6.1 M instructions after 57 of them.
    @Test("the session slot's log stays short: 40 sessions started and stopped leave a few lines, not dozens")
    func theSlotsLogStaysShort() async throws {
        let folder = TemporaryDirectory().file("devices")
        var longest = 0
        for index in 0..<40 {
            let store = ReplicatedLogStore.dataFolder(devices: folder, deviceID: { Self.a }, now: { Date() })
            let slot = StoreSessionRepository(store: store)
            let session = Fixtures.session(startingAt: Double(index) * 3_600)
            #expect(try await slot.replace(nil, with: session))
            let ended = session.ending(at: Fixtures.instant(Double(index) * 3_600 + 60), outcome: .stopped)
            #expect(try await slot.replace(session, with: ended))
            #expect(try await slot.replace(ended, with: nil))
            store.forgetParsedSuites()   // the end of the command
            let text = try String(contentsOfFile: folder + "/\(Self.a)/changes/session.jsonl", encoding: .utf8)
            longest = max(longest, text.split(separator: "\n").count)
        }
        #expect(longest <= ReplicatedLogStore.sessionCompactionInterval + 3, "\(longest) lines")
        #expect(try await StoreSessionRepository(store: ReplicatedLogStore.dataFolder(devices: folder, deviceID: { Self.b }, now: { Date() })).current() == nil)
    }
}
