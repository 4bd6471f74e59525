import Domain
import Foundation
import Synchronization
import Testing

/// Issue 31, "test it for real": one data folder shared by two real
/// Syncthing instances on 127.0.0.1, each device running the real binary
/// on its copy, with an identity of its own.
@Suite("a data folder shared by Syncthing", .serialized, .enabled(if: SyncthingInstance.available, "needs Debian's syncthing"))
struct SyncthingEndToEndTests {
    /// Two devices on a pair's two folders, `focus` made on A and seen by B.
    static func devices(_ pair: SyncthingPair, sameIdentity: Bool = false) throws -> (SharedFolderDevice, SharedFolderDevice) {
        let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
        let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB, id: sameIdentity ? a.id : UUID().uuidString.lowercased())
        try a.must("group", "create", "focus")
        try pair.waitUntilInSync()
        #expect(try b.groupNames() == ["focus"], "B sees the group A made")
        return (a, b)
    }

    @Test("sessions tracked on both devices at once all show in `log` on each, once, and nothing is lost")
    func trackedOnBothAtOnce() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try Self.devices(pair)
            let perDevice = 8
            // Both devices write at once, as two machines do: A the even
            // slots, B the odd ones.
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                let device = side == 0 ? a : b
                for index in 0..<perDevice {
                    let (from, to) = SharedFolderDevice.slot(index * 2 + side)
                    do { try device.track("focus", from: from, to: to, note: "\(device.name)-\(index)") } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let everything = Set((0..<perDevice).flatMap { ["a-\($0)", "b-\($0)"] })
            for device in [a, b] {
                let seen = try device.timeUntil(within: SyncthingPair.patience) { Set(try device.loggedNotes()) == everything }
                let notes = try device.loggedNotes()
                #expect(seen != nil, "\(device.name) shows every session: \(notes.sorted())")
                #expect(notes.count == everything.count, "each session once on \(device.name): \(notes.sorted())")
            }
            try pair.waitUntilInSync()
            // Each device wrote its own history folder only; Syncthing had
            // nothing to reconcile there.
            for folder in [pair.folderA, pair.folderB] {
                #expect(Set(FileManager.default.subpaths(atPath: folder + "/history") ?? []).isSuperset(of: [a.id, b.id]))
            }
            #expect(pair.conflictCopies().filter { $0.contains("/history/") }.isEmpty, "\(pair.conflictCopies())")
        }
    }

    @Test("sync-to-visible latency: a session tracked on one device shows in `log` on the other (measured, both ways)")
    func syncToVisibleLatency() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try Self.devices(pair)
            var latencies: [String: [TimeInterval]] = [:]
            for round in 0..<4 {
                for (writer, reader) in [(a, b), (b, a)] {
                    let note = "\(writer.name)-to-\(reader.name)-\(round)"
                    let (from, to) = SharedFolderDevice.slot(round * 2 + (writer.name == "a" ? 0 : 1))
                    try writer.track("focus", from: from, to: to, note: note)
                    let seen = try reader.timeUntil(within: SyncthingPair.patience) { try reader.loggedNotes().contains(note) }
                    #expect(seen != nil, "\(note) shows on \(reader.name)")
                    latencies["\(writer.name) -> \(reader.name)", default: []] += seen.map { [$0] } ?? []
                }
            }
            for (direction, values) in latencies.sorted(by: { $0.key < $1.key }) {
                let sorted = values.sorted()
                let median = sorted[sorted.count / 2], worst = sorted.last ?? 0
                print("Syncthing sync-to-visible latency \(direction): median \(Int(median * 1_000)) ms, max \(Int(worst * 1_000)) ms over \(values.count)"
                      + " (watcher delay \(SharedFolder.watcherDelay) s; bench/sync-latency.sh measures 20 with the release binary)")
            }
            #expect(latencies.values.map(\.count).reduce(0, +) == 8)
        }
    }

    @Test("a conflict copy Syncthing makes of a history segment is merged: every session of both versions shows, once")
    func conflictCopyOfSegmentIsMerged() throws {
        try SyncthingPair.run { pair in
            // A cloned machine (its state directory copied with the rest)
            // writes the same device folder as the original: the one way two
            // devices write one segment, so the one way to make Syncthing
            // keep two versions of it.
            let (a, b) = try Self.devices(pair, sameIdentity: true)
            try a.track("focus", from: SharedFolderDevice.slot(0).from, to: SharedFolderDevice.slot(0).to, note: "before")
            try pair.waitUntilInSync()
            try pair.pause()
            try a.track("focus", from: SharedFolderDevice.slot(1).from, to: SharedFolderDevice.slot(1).to, note: "apart-on-a")
            try b.track("focus", from: SharedFolderDevice.slot(2).from, to: SharedFolderDevice.slot(2).to, note: "apart-on-b")
            try pair.resume()
            try pair.waitUntil("a conflict copy of the segment on both sides") {
                let copies = pair.conflictCopies().filter { $0.contains("/history/\(a.id)/2026-01.sync-conflict-") }
                return copies.contains { $0.hasPrefix(pair.folderA + "/") } && copies.contains { $0.hasPrefix(pair.folderB + "/") }
            }
            try pair.waitUntilInSync()
            for device in [a, b] {
                let outcome = try device.must("log", "--json")
                let notes = try device.loggedNotes()
                #expect(notes.sorted() == ["apart-on-a", "apart-on-b", "before"], "\(device.name): \(notes)")
                #expect(outcome.err.isEmpty, "\(device.name) reads the conflict copy as history, without complaint: \(outcome.err)")
            }
        }
    }
}
