import Domain
import Foundation
import Synchronization
import PortContracts
import Testing

/// Issue 31's scenario with the plainest sync there is: two devices' data
/// directories copied into each other by rsync, both ways, in random order,
/// while both devices write.
@Suite("a data folder copied both ways by rsync", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncEndToEndTests {
    enum Step: CaseIterable { case trackOnA, trackOnB, copyAToB, copyBToA }

    @Test("rounds of writes on both devices and copies in random order converge: every session on each, once, the folders alike")
    func randomRoundsConverge() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "focus")
            try pair.copy(from: a, to: b)
            var written: [String] = []
            var slot = 0
            for round in 0..<6 {
                // Each round: two sessions on each device and one copy each
                // way, in an order of the seed's choosing.
                var steps: [Step] = [.trackOnA, .trackOnA, .trackOnB, .trackOnB, .copyAToB, .copyBToA]
                steps.shuffle(using: &random)
                for step in steps {
                    switch step {
                    case .trackOnA, .trackOnB:
                        let device = step == .trackOnA ? a : b
                        let (from, to) = SharedFolderDevice.slot(slot)
                        let note = "\(device.name)-\(round)-\(slot)"
                        slot += 1
                        try device.track("focus", from: from, to: to, note: note)
                        written.append(note)
                    case .copyAToB:
                        try copyWhileReading(pair, from: a, to: b)
                    case .copyBToA:
                        try copyWhileReading(pair, from: b, to: a)
                    }
                }
            }
            // The last writes reach the other side with one more copy each way.
            if Bool.random(using: &random) {
                try pair.copy(from: a, to: b)
                try pair.copy(from: b, to: a)
            } else {
                try pair.copy(from: b, to: a)
                try pair.copy(from: a, to: b)
            }
            for device in [a, b] {
                let notes = try device.loggedNotes()
                #expect(notes.sorted() == written.sorted(), "\(device.name) shows every session once (seed \(seed)): \(notes.sorted())")
            }
            #expect(FolderSnapshot(pair.folderA) == FolderSnapshot(pair.folderB), "the folders converged (seed \(seed))")
            for folder in [pair.folderA, pair.folderB] {
                #expect(Set(FileManager.default.subpaths(atPath: folder + "/history") ?? []).isSuperset(of: [a.id, b.id]))
            }
        }
    }

    /// Copies into `receiver`'s folder while `receiver` reads its history,
    /// which must never fail or complain: rsync writes each file aside
    /// (`.NAME.XXXXXX`) and renames it, and a sync tool's partial file is
    /// never data.
    func copyWhileReading(_ pair: RsyncPair, from sender: SharedFolderDevice, to receiver: SharedFolderDevice) throws {
        let reading = try receiver.retime.start(["log", "--json"])
        try pair.copy(from: sender, to: receiver)
        let outcome = try receiver.retime.finish(reading)
        #expect(outcome.status == 0 && outcome.err.isEmpty, "log on \(receiver.name) during a copy: \(outcome.status) \(outcome.err)")
    }
}
