import Adapters
import Domain
import Foundation
import Testing

/// This device's id, kept outside the data folder (issue 31).
@Suite("DeviceIdentity: one id per home, outside the data folder, the old one adopted once")
struct DeviceIdentityTests {
    let directory = TemporaryDirectory()

    func contents(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test("the file is $XDG_STATE_HOME/retime/device-id, else under HOME (a relative XDG_STATE_HOME is ignored)")
    func location() {
        #expect(DeviceIdentity.file(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/retime/device-id")
        #expect(DeviceIdentity.file(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]) == "/h/.local/state/retime/device-id")
        #expect(DeviceIdentity.file(environment: ["HOME": "/h"]) == "/h/.local/state/retime/device-id")
    }

    @Test("made on first use in the state directory, never in the data directory; read back the same after")
    func madeOnFirstUse() throws {
        let identity = DeviceIdentity(file: directory.file("home/.local/state/retime/device-id"), legacyFile: directory.file("data/device-id"))
        let id = try identity.loadOrCreate()
        #expect(UUIDText.parse(id) != nil && id == id.lowercased())
        #expect(contents(identity.file) == id)
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/device-id")))
        #expect(try identity.loadOrCreate() == id)
        #expect(try identity.check().get() == id)
    }

    @Test("two data directories under one home are one device; two homes are two")
    func homesAndDataDirectories() throws {
        let state = directory.file("home/state/device-id")
        let first = try DeviceIdentity(file: state, legacyFile: directory.file("data1/device-id")).loadOrCreate()
        let second = try DeviceIdentity(file: state, legacyFile: directory.file("data2/device-id")).loadOrCreate()
        #expect(first == second)
        let other = try DeviceIdentity(file: directory.file("other-home/state/device-id"), legacyFile: directory.file("data1/device-id")).loadOrCreate()
        #expect(other != first)
    }

    @Test("an old DATA_DIR/device-id is adopted once and renamed aside, so a second machine receiving the folder makes its own")
    func migration() throws {
        let legacy = directory.file("data/device-id"), old = UUIDText.lowercase(UUID())
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        try Data((old + "\n").utf8).write(to: URL(fileURLWithPath: legacy))
        let here = DeviceIdentity(file: directory.file("home/device-id"), legacyFile: legacy)
        #expect(try here.loadOrCreate() == old)
        #expect(!FileManager.default.fileExists(atPath: legacy))
        #expect(contents(DeviceIdentity.migrated(legacy)) == old)
        // The synced folder arrives on another machine: it has a home of its own.
        let there = try DeviceIdentity(file: directory.file("home2/device-id"), legacyFile: legacy).loadOrCreate()
        #expect(there != old)
        #expect(try here.loadOrCreate() == old)
    }

    @Test("a crash between adopting and renaming is finished by the next use; another device's old file is left alone")
    func interruptedMigration() throws {
        let legacy = directory.file("data/device-id"), id = UUIDText.lowercase(UUID())
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("home"), withIntermediateDirectories: true)
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: legacy))
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: directory.file("home/device-id")))
        #expect(try DeviceIdentity(file: directory.file("home/device-id"), legacyFile: legacy).loadOrCreate() == id)
        #expect(!FileManager.default.fileExists(atPath: legacy) && contents(DeviceIdentity.migrated(legacy)) == id)

        let foreign = UUIDText.lowercase(UUID())
        try Data((foreign + "\n").utf8).write(to: URL(fileURLWithPath: legacy))
        #expect(try DeviceIdentity(file: directory.file("home/device-id"), legacyFile: legacy).loadOrCreate() == id)
        #expect(contents(legacy) == foreign)
    }

    @Test("concurrent first uses all get the one id that was linked into place")
    func concurrentFirstUse() async throws {
        let identity = DeviceIdentity(file: directory.file("home/state/device-id"), legacyFile: directory.file("data/device-id"))
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try identity.loadOrCreate() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1 && ids.first == contents(identity.file))
    }

    @Test("a damaged id file is an error naming it; repair moves it aside and recovers the history folder it names")
    func damagedAndRepaired() throws {
        let identity = DeviceIdentity(file: directory.file("home/device-id"), legacyFile: directory.file("data/device-id"))
        let id = try identity.loadOrCreate()
        try FileManager.default.createDirectory(atPath: directory.file("data/history/" + id), withIntermediateDirectories: true)
        try Data(id.prefix(6).utf8).write(to: URL(fileURLWithPath: identity.file))
        #expect(throws: StoreError.self) { try identity.loadOrCreate() }
        guard case .failure(let error) = identity.check() else { Issue.record("the damage went unseen"); return }
        #expect("\(error)".contains(identity.file))
        let done = try identity.repair(historyDirectory: directory.file("data/history"))
        #expect(done.recovered && done.id == id && contents(done.movedTo) == String(id.prefix(6)))
        #expect(try identity.loadOrCreate() == id)
    }

    @Test("a damaged old DATA_DIR/device-id not yet adopted: check names it, repair recovers into the state file")
    func damagedLegacy() throws {
        let legacy = directory.file("data/device-id"), id = UUIDText.lowercase(UUID())
        try FileManager.default.createDirectory(atPath: directory.file("data/history/" + id), withIntermediateDirectories: true)
        try Data(id.prefix(8).utf8).write(to: URL(fileURLWithPath: legacy))
        let identity = DeviceIdentity(file: directory.file("home/device-id"), legacyFile: legacy)
        guard case .failure(let error) = identity.check() else { Issue.record("the damage went unseen"); return }
        #expect("\(error)".contains(legacy))
        let done = try identity.repair(historyDirectory: directory.file("data/history"))
        #expect(done.recovered && done.id == id && done.movedTo.hasPrefix(legacy + ".corrupt-"))
        #expect(contents(identity.file) == id && !FileManager.default.fileExists(atPath: legacy))
    }

    @Test("a device-id that is not a regular file is refused, not followed")
    func notRegular() throws {
        try FileManager.default.createDirectory(atPath: directory.file("home"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("home/device-id"), withDestinationPath: "/dev/zero")
        #expect(throws: StoreError.self) { try DeviceIdentity(file: directory.file("home/device-id")).loadOrCreate() }
    }
}
