import Foundation
import Testing

/// The shared passcode between two real Syncthing instances: set on A, it
/// ends a strict session on B once synced; changed on B, A refuses the old
/// one once synced back; each device writes only its own record, so the
/// sync makes no conflict copy.
@Suite("the passcode shared by Syncthing", .serialized, .enabled(if: SyncthingInstance.available, "needs Debian's syncthing"))
struct SyncthingPasscodeTests {
    @Test("set on A, it ends B's strict session; changed on B, A refuses the old one")
    func followsTheSync() throws {
        try SyncthingPair.run { pair in
            let (a, b) = try SyncthingEndToEndTests.devices(pair)
            for device in [a, b] { try device.must("config", "set", "shield", "none") }
            #expect(try a.retime.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
            let shown = try b.timeUntil(within: SyncthingPair.patience) {
                try b.must("auth", "status", "--json").json["passcodeSet"] as? Bool == true
            }
            #expect(shown != nil, "B has A's passcode")
            try b.must("start", "focus", "--for", "1h", "--strict")
            #expect(try b.retime.run(["stop", "--passcode-stdin"], input: "quokka\n").status == 0)

            #expect(try b.retime.run(["auth", "change-passcode", "--stdin"], input: "quokka\nwombat\n").status == 0)
            try pair.waitUntilInSync()
            try a.must("start", "focus", "--for", "1h", "--strict")
            // Polled on what A says, not by guessing (wrong guesses would lock A out).
            let changed = try a.timeUntil(within: SyncthingPair.patience) {
                try a.must("auth", "status").out.contains("passcode: set on \(b.id)")
            }
            #expect(changed != nil, "A has B's change")
            #expect(try a.retime.run(["stop", "--passcode-stdin", "--json"], input: "quokka\n").errorCode == "auth.wrongPasscode")
            #expect(try a.retime.run(["stop", "--passcode-stdin"], input: "wombat\n").status == 0)
            try pair.waitUntilInSync()
            #expect(pair.conflictCopies().isEmpty, "\(pair.conflictCopies())")
        }
    }
}
