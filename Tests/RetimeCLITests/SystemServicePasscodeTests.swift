import Foundation
import Testing

@Suite("The passcode the system service keeps", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServicePasscodeTests {
    @Test("set with the service in use, the service keeps its own hash; one swapped into the user's data lifts nothing")
    func swappedHash() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        #expect(FileManager.default.fileExists(atPath: system.state + "/users/65534/auth.json"), "the service keeps its own hash")
        try user.run("group", "create", "work", "--block", "example.com")

        // A hash of the user's choosing, made where no service answers, swapped into the data.
        var offline = system.client()
        offline.environment["RETIME_SHIELD_SOCKET"] = system.root + "/nothing.sock"
        #expect(try offline.run(["auth", "set-passcode", "--stdin"], input: "chosen-one\n").status == 0)
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        try Data(contentsOf: URL(fileURLWithPath: offline.file("store/auth.json"))).write(to: URL(fileURLWithPath: user.file("store/auth.json")))
        let cheat = try user.run(["stop", "--passcode-stdin", "--json"], input: "chosen-one\n")
        #expect(cheat.status != 0, "the service's hash decides: \(cheat.err)")
        #expect(system.blocked == ["example.com"])
        #expect((try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])?.count == 1)
    }

    @Test("stop --passcode-stdin of a strict session goes to the service, which lowers it with the right passcode")
    func earlyEnd() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "right-one\n").status == 0)
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        #expect(try user.run(["stop", "--passcode-stdin"], input: "wrong-one\n").status == 3)
        #expect(system.blocked == ["example.com"])
        let stop = try user.run(["stop", "--passcode-stdin"], input: "right-one\n")
        #expect(stop.status == 0, "\(stop.err)")
        #expect(system.blocked.isEmpty)
        // Changed and removed there too: the old one no longer counts with the service.
        #expect(try user.run(["auth", "change-passcode", "--stdin"], input: "right-one\nnew-one-9\n").status == 0)
        #expect(try user.run(["auth", "remove-passcode", "--stdin"], input: "new-one-9\n").status == 0)
        #expect(try user.run(["auth", "set-passcode", "--stdin"], input: "third-one\n").status == 0, "the service's was removed too")
    }
}
