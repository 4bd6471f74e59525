import Domain
import Foundation
import PortContracts
import Testing

/// Issue 31's groups, schedules, settings and sessions with the plainest
/// sync there is: rsync copying two devices' folders into each other, with
/// none of Syncthing's version vectors or conflict copies. Only the rule
/// that every device writes its own files makes this safe.
@Suite("groups, schedules, settings and sessions copied both ways by rsync", .enabled(if: RsyncPair.available, "needs rsync"))
struct RsyncSharedStateTests {
    @Test("a rename on A and a block on B, and groups, schedules and settings made on each while apart, all hold after copies either way")
    func editsWhileApartConverge() throws {
        for aFirst in [true, false] {
            try RsyncPair.run { pair in
                let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
                let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
                try a.must("group", "create", "focus")
                try pair.copy(from: a, to: b)
                try EditsWhileApart.make(on: a, and: b)
                if aFirst {
                    try pair.copy(from: a, to: b)
                    try pair.copy(from: b, to: a)
                } else {
                    try pair.copy(from: b, to: a)
                    try pair.copy(from: a, to: b)
                }
                for device in [a, b] {
                    #expect(try EditsWhileApart.converged(device), "\(device.name), A copied first: \(aFirst): \((try? device.groupNames()) ?? [])")
                }
                #expect(FolderSnapshot(pair.folderA) == FolderSnapshot(pair.folderB), "the folders converged")
            }
        }
    }

    @Test("a session started on A shows on B after a copy; stopped on B, A lowers its block after the copy back, and history has it once")
    func sessionFollowsTheCopies() throws {
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "focus", "--block", "example.com")
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            let session = try #require(try a.must("start", "focus", "--for", "30m", "--json").json["session"] as? [String: Any])
            let id = try #require(session["id"] as? String)
            #expect(SyncthingSharedStateTests.blockRecord(of: a)?["session"] as? String == id, "A raised its own block")

            try pair.copy(from: a, to: b)
            let shown = try b.status()
            #expect(shown["active"] as? Bool == true && (shown["session"] as? [String: Any])?["id"] as? String == id, "\(shown)")
            #expect(SyncthingSharedStateTests.blockRecord(of: b)?["session"] as? String == id, "B's command raised B's block")

            try b.must("stop")
            #expect(SyncthingSharedStateTests.blockRecord(of: b) == nil)
            try pair.copy(from: b, to: a)
            #expect(try a.status()["active"] as? Bool == false, "A sees the stop B made")
            #expect(SyncthingSharedStateTests.blockRecord(of: a) == nil, "A's command lowered A's block")
            try pair.copy(from: a, to: b)
            for device in [a, b] {
                #expect(try device.loggedSessions().filter { $0["id"] as? String == id }.count == 1, "\(device.name) has the session once")
            }
        }
    }

    /// One step of the random scenario: a device adds or removes what only
    /// it names, so that the final state is known whatever the order.
    enum Step: CaseIterable { case createGroup, blockTarget, unblockOwnTarget, addSchedule, copyAToB, copyBToA }

    @Test("random rounds of edits on both devices and copies in random order: every group, target and schedule made shows on each, and none removed")
    func randomEditsConverge() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        try RsyncPair.run { pair in
            let a = try SharedFolderDevice(name: "a", dataDirectory: pair.folderA)
            let b = try SharedFolderDevice(name: "b", dataDirectory: pair.folderB)
            try a.must("group", "create", "focus")
            try pair.copy(from: a, to: b)
            var groups: Set<String> = ["focus"], targets: [String: Set<String>] = ["a": [], "b": []], schedules: Set<String> = []
            for counter in 0..<30 {
                let step = Step.allCases.randomElement(using: &random)!
                let device = Bool.random(using: &random) ? a : b
                let tag = "\(device.name)\(counter)"
                switch step {
                case .createGroup:
                    try device.must("group", "create", "g-\(tag)")
                    groups.insert("g-\(tag)")
                case .blockTarget:
                    try device.must("group", "block", "focus", "\(tag).example")
                    targets[device.name, default: []].insert("\(tag).example")
                case .unblockOwnTarget:
                    // Only a target this device added and has not removed:
                    // its own add is the one it removes.
                    guard let target = targets[device.name]?.sorted().first else { continue }
                    try device.must("group", "unblock", "focus", target)
                    targets[device.name]?.remove(target)
                case .addSchedule:
                    try device.must("schedule", "add", "s-\(tag)", "--group", "focus", "--from", "09:00", "--to", "10:00")
                    schedules.insert("s-\(tag)")
                case .copyAToB:
                    try pair.copy(from: a, to: b)
                case .copyBToA:
                    try pair.copy(from: b, to: a)
                }
            }
            try pair.copy(from: a, to: b)
            try pair.copy(from: b, to: a)
            let expectedTargets = targets.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            for device in [a, b] {
                #expect(Set(try device.groupNames()) == groups, "\(device.name) (seed \(seed))")
                #expect(Set(try device.scheduleNames()) == schedules, "\(device.name) (seed \(seed))")
                let focus = try device.must("group", "show", "focus", "--json").json["group"] as? [String: Any]
                #expect(Set(focus?["targets"] as? [String] ?? []) == expectedTargets, "\(device.name) (seed \(seed))")
            }
            #expect(FolderSnapshot(pair.folderA) == FolderSnapshot(pair.folderB), "the folders converged (seed \(seed))")
        }
    }
}
