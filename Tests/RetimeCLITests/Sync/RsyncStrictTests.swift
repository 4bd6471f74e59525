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

    /// Two strict sessions started on two devices before either saw the
    /// other's: the one planned to end later holds, with the other's
    /// targets too, so a second device cannot cut a strict session short
    /// or drop its targets with a strict session of its own.
    @Test("a shorter strict session started apart on B does not end A's; a longer one on the group B unblocked first keeps A's targets",
          arguments: [false, true])
    func aSecondStrictSessionDoesNotWeakenTheFirst(longerOnB: Bool) throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            try a.must("group", "create", "work", "--block", "a.example", "--block", "c.example")
            try a.must("group", "create", "play", "--block", "p.example")
            try pair.copy(from: a, to: b)
            let first = try #require(try a.must("start", "work", "--for", "20m", "--strict", "--json").json["session"] as? [String: Any])
            let second: [String: Any]
            if longerOnB {
                try b.must("group", "unblock", "work", "a.example")
                second = try #require(try b.must("start", "work", "--for", "30m", "--strict", "--json").json["session"] as? [String: Any])
            } else {
                second = try #require(try b.must("start", "play", "--for", "5m", "--strict", "--json").json["session"] as? [String: Any])
            }
            try pair.copy(from: b, to: a)
            try pair.copy(from: a, to: b)
            let holder = longerOnB ? second : first, ended = longerOnB ? first : second
            for device in [a, b] {
                let status = try device.status()
                #expect((status["session"] as? [String: Any])?["id"] as? String == holder["id"] as? String, "\(device.name): \(status)")
            }
            try pair.copy(from: a, to: b)
            try pair.copy(from: b, to: a)
            for device in [a, b] {
                #expect(try device.loggedSessions().filter { $0["id"] as? String == ended["id"] as? String }.count == 1, "\(device.name)")
            }
            // The device whose own session ended raised the holder's block: every target of both.
            let raiser = longerOnB ? a : b
            let targets = Set(SyncthingSharedStateTests.blockRecord(of: raiser)?["targets"] as? [String] ?? [])
            let expected: Set<String> = longerOnB ? ["a.example", "c.example"] : ["a.example", "c.example", "p.example"]
            #expect(targets == expected, "\(raiser.name): \(targets)")
        }
    }
}
