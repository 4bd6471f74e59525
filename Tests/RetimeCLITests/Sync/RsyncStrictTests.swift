import Domain
import Foundation
import Testing

/// A strict session's block never loses a target before its end, on any
/// device (issue 31, "Strict rules hold on every device"): a device that
/// has the session's group but not yet the session itself may unblock the
/// group's targets (nothing there says they are locked); the merge takes
/// that in everywhere, and the session's block holds them all the same.
@Suite("a strict session's targets, with its group edited on a device that had not seen it", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncStrictTests {
    @Test("B, with the group but not yet the session, unblocks a target and renames the group: both devices' blocks keep every target to the end")
    func theBlockHoldsWhatTheGroupLost() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            try a.must("group", "create", "work", "--block", "a.example", "--block", "c.example")
            try pair.copy(from: a, to: b)
            try a.must("start", "work", "--for", "20m", "--strict")
            // Nothing on B says `work` is locked yet.
            try b.must("group", "unblock", "work", "a.example")
            try b.must("group", "rename", "work", "play")
            try pair.copy(from: b, to: a)
            try pair.copy(from: a, to: b)
            // A's block follows its group's change (a target added), B's
            // command raises B's block for A's session: both hold a.example.
            try a.must("group", "block", "play", "d.example")
            try pair.copy(from: a, to: b)
            #expect(try b.status()["active"] as? Bool == true)
            for device in [a, b] {
                let targets = SyncthingSharedStateTests.blockRecord(of: device)?["targets"] as? [String] ?? []
                #expect(Set(targets) == ["a.example", "c.example", "d.example"], "\(device.name): \(targets)")
            }
            #expect(try a.must("group", "show", "play", "--json").json["group"].map { ($0 as? [String: Any])?["targets"] as? [String] } == ["c.example", "d.example"],
                    "the group itself shows what the merge gave it")
        }
    }
}
