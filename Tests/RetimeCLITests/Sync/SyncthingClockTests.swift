import Domain
import Foundation
import Testing

/// semantics.md, "Devices you can trust", "Clocks", for real: two devices
/// sharing a data folder through two Syncthing instances, one of them
/// running the binary under libfaketime an hour ahead (its wall clock, the
/// file times it reads, its boot-time clock: as a machine whose clock is
/// wrong sees all three).
@Suite("a device whose clock is an hour ahead, over Syncthing", .serialized,
       .enabled(if: SyncthingInstance.available && AuthEndToEndTests.hasFaketime, "needs Debian's syncthing, faketime and a dynamic binary"))
struct SyncthingClockTests {
    /// A and B, B an hour ahead; `focus` blocks example.com; both record
    /// their blocks (`none`).
    static func devices(_ pair: SyncthingPair) throws -> (SharedFolderDevice, SharedFolderDevice) {
        let (a, b) = try Self.fastB(pair)
        try a.must("group", "block", "focus", "example.com")
        for device in [a, b] { try device.must("config", "set", "shield", "none") }
        try pair.waitUntilInSync()
        return (a, b)
    }

    static func fastB(_ pair: SyncthingPair) throws -> (SharedFolderDevice, SharedFolderDevice) {
        let (a, plainB) = try SyncthingEndToEndTests.devices(pair)
        var b = plainB
        b.retime.launcher = ["/usr/bin/faketime", "-f", "+1h"]
        return (a, b)
    }

    @Test("a strict session started on A runs on B (an hour ahead) to its end on A's clock: never completed, unblocked or stoppable early there")
    func fastClockEndsNothingElsewhere() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try Self.devices(pair)
            let started = try a.must("start", "focus", "--for", "20s", "--strict", "--json").json["session"] as? [String: Any]
            let id = try #require(started?["id"] as? String)
            let plannedEnd = try #require((started?["plannedEnd"] as? String).flatMap { Timestamp.parse($0) })
            let shown = try b.timeUntil(within: SyncthingPair.patience) { try b.status()["active"] as? Bool == true }
            try #require(shown != nil, "B shows A's session")

            // Until A's clock reaches the end, every look on B finds it
            // running, its block up, nothing in B's history, and no stop.
            var looks = 0
            while true {
                let status = try b.must("status")
                let finished = Date()
                guard finished < plannedEnd else { break }
                looks += 1
                #expect(!status.out.contains("no session"), "B keeps A's session to A's end: \(status.out)")
                #expect(SyncthingSharedStateTests.blockRecord(of: b)?["session"] as? String == id, "B's block holds")
                if looks == 1 {
                    #expect(status.out.contains("this machine's clock is about 1h ahead"), "B says why: \(status.out)")
                    let stop = try b.run("stop")
                    #expect(stop.status == 3, "a strict session is not stopped early on B either: \(stop.status) \(stop.err)")
                }
                #expect(try b.loggedSessions().allSatisfy { $0["id"] as? String != id }, "B never completes it early")
            }
            #expect(looks > 0, "B was looked at before the end")
            print("Syncthing clocks: B, an hour ahead, kept A's strict session through \(looks) looks before its end")

            // After A's end, both complete it at its planned end, once.
            for device in [a, b] {
                let ended = try device.timeUntil(within: SyncthingPair.patience) {
                    try device.status()["active"] as? Bool == false && (try device.loggedSessions().contains { $0["id"] as? String == id })
                }
                #expect(ended != nil, "\(device.name) ends it after its end")
            }
            try pair.waitUntilInSync()
            for device in [a, b] {
                let entries = try device.loggedSessions().filter { $0["id"] as? String == id }
                #expect(entries.count == 1 && entries.first?["outcome"] as? String == "completed", "\(device.name): \(entries)")
                let endedAt = (entries.first?["endedAt"] as? String).flatMap { Timestamp.parse($0) }
                #expect(endedAt == plannedEnd, "completed at its planned end, not before: \(entries)")
            }
            let lowered = try b.timeUntil(within: SyncthingPair.patience) { SyncthingSharedStateTests.blockRecord(of: b) == nil }
            #expect(lowered != nil, "B's block goes once it ended")
        }
    }

    @Test("a session started on B (an hour ahead) stops on A: its end is never before its start, and both agree")
    func wrongClockSessionStopsAnywhere() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try Self.devices(pair)
            let started = try b.must("start", "focus", "--for", "30m", "--json").json["session"] as? [String: Any]
            let id = try #require(started?["id"] as? String)
            let shown = try a.timeUntil(within: SyncthingPair.patience) { try a.status()["active"] as? Bool == true }
            try #require(shown != nil, "A shows B's session")
            let stop = try a.run("stop")
            #expect(stop.status == 0, "stopped on A, whose clock reads an hour before B's start: \(stop.err)")
            for device in [a, b] {
                let ended = try device.timeUntil(within: SyncthingPair.patience) {
                    try device.status()["active"] as? Bool == false && (try device.loggedSessions().contains { $0["id"] as? String == id })
                }
                #expect(ended != nil, "\(device.name) shows it stopped")
                let entry = try device.loggedSessions().first { $0["id"] as? String == id }
                let start = (entry?["startedAt"] as? String).flatMap { Timestamp.parse($0) }, end = (entry?["endedAt"] as? String).flatMap { Timestamp.parse($0) }
                #expect(start != nil && end != nil && end! >= start!, "\(device.name): \(entry ?? [:])")
                #expect(entry?["outcome"] as? String == "stopped", "\(device.name): \(entry ?? [:])")
            }
            let sync = try a.must("sync", "status", "--json").json
            let offset = (sync["devices"] as? [[String: Any]])?.first { $0["id"] as? String == b.id }?["clockOffsetSeconds"] as? Int
            #expect(offset.map { abs($0 - 3_600) < 120 } == true, "A estimates B's clock an hour ahead: \(sync)")
        }
    }
}
