import Domain
import Foundation
import Testing

/// Issue 31: groups, schedules, settings and the session, shared by two
/// real Syncthing instances, each device writing only its own change logs.
@Suite("groups, schedules, settings and sessions shared by Syncthing", .serialized,
       .enabled(if: SyncthingInstance.available, "needs Debian's syncthing"))
struct SyncthingSharedStateTests {
    @Test("edits made on both devices while apart (rename and block, groups, schedules, settings) converge, nothing lost")
    func editsWhileApartConverge() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try SyncthingEndToEndTests.devices(pair)
            try pair.pause()
            try EditsWhileApart.make(on: a, and: b)
            try pair.resume()
            for device in [a, b] {
                let took = try device.timeUntil(within: SyncthingPair.patience) { try EditsWhileApart.converged(device) }
                let groups = try device.groupNames(), schedules = try device.scheduleNames()
                #expect(took != nil, "\(device.name): \(groups) \(schedules)")
                print("Syncthing: \(device.name) shows both devices' edits \(Int((took ?? 0) * 1_000)) ms after the link came back")
            }
            try pair.waitUntilInSync()
            #expect(pair.conflictCopies().isEmpty, "every device wrote only its own files: \(pair.conflictCopies())")
        }
    }

    @Test("a session started on A shows on B and B's daemon raises its block; stopped on B, A's daemon lowers A's")
    func sessionFollowsTheDevices() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try SyncthingEndToEndTests.devices(pair)
            try a.must("group", "block", "focus", "example.com")
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            let daemonA = try a.startDaemon(), daemonB = try b.startDaemon()
            defer { a.stopDaemon(daemonA); b.stopDaemon(daemonB) }
            try pair.waitUntilInSync()

            let session = try #require(try a.must("start", "focus", "--for", "30m", "--json").json["session"] as? [String: Any])
            let id = try #require(session["id"] as? String)
            // B's own record, read without running a command on B (whose
            // reconcile would raise the block itself): B's daemon raised it.
            let raised = try b.timeUntil(within: SyncthingPair.patience) { Self.blockRecord(of: b)?["session"] as? String == id }
            #expect(raised != nil, "B's daemon raised the block through B's shield")
            #expect(Self.blockRecord(of: a)?["session"] as? String == id, "A's block is A's own")
            let shown = try b.timeUntil(within: SyncthingPair.patience) { try b.status()["active"] as? Bool == true }
            #expect(shown != nil, "B shows A's session")
            print("Syncthing: a session started on A raised by B's daemon after \(Int((raised ?? 0) * 1_000)) ms")

            #expect(try b.run("stop").status == 0, "a session that is not strict stops anywhere")
            let lowered = try a.timeUntil(within: SyncthingPair.patience) { Self.blockRecord(of: a) == nil }
            #expect(lowered != nil, "A's daemon lowered A's block")
            #expect(try a.status()["active"] as? Bool == false)
            let history = try a.timeUntil(within: SyncthingPair.patience) { try a.loggedSessions().contains { $0["id"] as? String == id } }
            #expect(history != nil, "the session ended in history, once")
            #expect(try a.loggedSessions().filter { $0["id"] as? String == id }.count == 1)
            // Each machine wrote only its own shield record, logs and events:
            // nothing for the sync tool to make a conflict copy of.
            try pair.waitUntilInSync()
            #expect(pair.conflictCopies().isEmpty, "\(pair.conflictCopies())")
        }
    }

    /// The block the `none` shield of `device` records (its machine's own
    /// suite), or nil when none is up.
    static func blockRecord(of device: SharedFolderDevice) -> [String: Any]? {
        // Only this device's own record: another machine's, synced here, is not this one's block.
        guard let data = FileManager.default.contents(atPath: device.dataDirectory + "/devices/\(device.id)/store/shield.json") else { return nil }
        let values = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["values"] as? [String: Any]
        return values?["block"] as? [String: Any]
    }
}
