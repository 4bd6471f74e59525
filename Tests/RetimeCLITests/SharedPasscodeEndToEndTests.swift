import Foundation
import Testing

/// The passcode is every device's (issue 31), through the built binary:
/// two homes (two device ids) over one data folder. Set on the laptop, it
/// ends the desktop's strict session; changed on the desktop, the old one
/// no longer works on the laptop; removed on the laptop, the desktop has
/// none. Wrong attempts lock out only the machine they were made on.
@Suite("the passcode shared by the devices of a data folder, end to end")
struct SharedPasscodeEndToEndTests {
    let laptop = RetimeProcess()
    var desktop: RetimeProcess {
        var desktop = laptop
        desktop.environment["HOME"] = laptop.dataDirectory + "-desktop"
        return desktop
    }

    func deviceID(home: String) throws -> String {
        try String(contentsOfFile: home + "/.local/state/retime/device-id", encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    @Test("set on one device, changed on another, removed on the first: every device follows")
    func followsEveryDevice() throws {
        #expect(try laptop.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
        let laptopID = try deviceID(home: laptop.dataDirectory + "-home")
        try desktop.run("device", "name", "desk")
        try laptop.run("device", "name", "lap")

        let status = try desktop.run("auth", "status")
        #expect(status.status == 0 && status.out.contains("passcode: set on lap (\(laptopID.prefix(8)))"), "\(status.out)")
        #expect(try desktop.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)
        #expect(!(try laptop.run("auth", "status").out.contains(" on ")), "the laptop set it itself")

        // The laptop's passcode ends a strict session on the desktop.
        try desktop.run("group", "create", "work", "--block", "a.com")
        #expect(try desktop.run("start", "work", "--for", "1h", "--strict").status == 0)
        let wrong = try desktop.run(["stop", "--passcode-stdin", "--json"], input: "wombat\n")
        #expect(wrong.status == 3 && wrong.errorCode == "auth.wrongPasscode")
        let right = try desktop.run(["stop", "--passcode-stdin", "--json"], input: "quokka\n")
        #expect(right.status == 0, "\(right.err)")

        // Changed on the desktop: the old one no longer ends the laptop's strict session.
        #expect(try desktop.run(["auth", "change-passcode", "--stdin"], input: "quokka\nwombat\n").status == 0)
        #expect(try laptop.run("start", "work", "--for", "1h", "--strict").status == 0)
        let old = try laptop.run(["stop", "--passcode-stdin", "--json"], input: "quokka\n")
        #expect(old.status == 3 && old.errorCode == "auth.wrongPasscode")
        #expect(try laptop.run(["stop", "--passcode-stdin"], input: "wombat\n").status == 0)
        #expect(try laptop.run("auth", "status").out.contains("passcode: set on desk"))

        // Removed on the laptop: the desktop has none, and may set another.
        #expect(try laptop.run(["auth", "remove-passcode", "--stdin"], input: "wombat\n").status == 0)
        let gone = try desktop.run("auth", "status")
        #expect(gone.out.contains("passcode: not set (removed on lap"), "\(gone.out)")
        #expect(try desktop.run(["auth", "set-passcode", "--stdin"], input: "numbat\n").status == 0)
        #expect(try laptop.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)

        // Each device wrote only its own record, one record each; the audit trail stays per device.
        let devices = try FileManager.default.contentsOfDirectory(atPath: laptop.file("devices")).filter { !$0.hasPrefix(".") }
        for device in devices {
            let names = try FileManager.default.contentsOfDirectory(atPath: laptop.file("devices/\(device)"))
            let records = names.filter { $0.hasPrefix("passcode") }
            #expect(records == ["passcode.json"], "\(device): \(names)")
            let record = try String(contentsOfFile: laptop.file("devices/\(device)/passcode.json"), encoding: .utf8)
            #expect(record.contains("\"at\" : \"") && record.contains("-\(device)\""), "\(record)")
            #expect(FileManager.default.fileExists(atPath: laptop.file("devices/\(device)/audit.jsonl")))
        }
    }

    @Test("wrong attempts lock out only the machine they were made on")
    func lockoutIsTheMachines() throws {
        #expect(try laptop.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
        try laptop.run("group", "create", "work", "--block", "a.com")
        #expect(try laptop.run("start", "work", "--for", "1h", "--strict").status == 0)
        for attempt in 1...5 { try laptop.run(["stop", "--passcode-stdin"], input: "000\(attempt)\n") }
        #expect(try laptop.run(["stop", "--passcode-stdin", "--json"], input: "quokka\n").errorCode == "auth.lockedOut")
        // The session is the person's: the desktop, not locked out, ends it with the passcode.
        #expect(try desktop.run("auth", "status", "--json").json["failedAttempts"] as? Int == 0)
        #expect(try desktop.run(["stop", "--passcode-stdin"], input: "quokka\n").status == 0)
    }

    @Test("a passcode an older retime kept in the machine's auth suite still ends a strict session, and then moves to the shared record")
    func olderLayoutMoves() throws {
        // A real hash, made by retime in a folder of its own.
        let maker = RetimeProcess()
        #expect(try maker.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
        let made = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: try maker.deviceFile("passcode.json")))) as? [String: Any]
        let hash = try #require(made?["hash"] as? String)
        // The single-device layout, as an older retime left it: the hash in store/auth.json.
        try FileManager.default.createDirectory(atPath: laptop.file("store"), withIntermediateDirectories: true)
        let suite = "{\"format\":\"retime.suite\",\"version\":1,\"values\":{\"state\":{\"failedAttempts\":1,\"passcodeHash\":\"\(hash)\",\"shieldAuthorization\":\"approved\"}}}\n"
        try Data(suite.utf8).write(to: URL(fileURLWithPath: laptop.file("store/auth.json")))

        let status = try laptop.run("auth", "status", "--json").json
        #expect(status["passcodeSet"] as? Bool == true && status["failedAttempts"] as? Int == 1 && status["shieldAuthorization"] as? String == "approved")
        try laptop.run("group", "create", "work", "--block", "a.com")
        #expect(try laptop.run("start", "work", "--for", "1h", "--strict").status == 0)
        #expect(try laptop.run(["stop", "--passcode-stdin"], input: "quokka\n").status == 0)
        // Moved: the shared record holds it, the machine's suite no longer does.
        let record = try String(contentsOfFile: try laptop.deviceFile("passcode.json"), encoding: .utf8)
        #expect(record.contains(hash))
        let machine = try String(contentsOfFile: try laptop.deviceFile("store/auth.json"), encoding: .utf8)
        #expect(!machine.contains(hash) && machine.contains("approved"), "\(machine)")
        // And the other device has it now.
        #expect(try desktop.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)
    }

    @Test("a half-copied passcode file of another device is named by sync status and doctor, and changes nothing")
    func halfCopiedFile() throws {
        #expect(try laptop.run(["auth", "set-passcode", "--stdin"], input: "quokka\n").status == 0)
        let other = "cccccccc-0000-4000-8000-000000000003"
        try FileManager.default.createDirectory(atPath: laptop.file("devices/\(other)"), withIntermediateDirectories: true)
        try Data("{\"at\":\"99999".utf8).write(to: URL(fileURLWithPath: laptop.file("devices/\(other)/passcode.json")))
        #expect(try laptop.run("auth", "status", "--json").json["passcodeSet"] as? Bool == true)
        let sync = try laptop.run("sync", "status", "--json")
        #expect(sync.status == 0 && (sync.json["unreadable"] as? [String]) == ["devices/\(other)/passcode.json"], "\(sync.out)")
        let doctor = try laptop.run("doctor")
        #expect(doctor.prose.contains("devices/\(other)/passcode.json"), "\(doctor.out)")
    }
}
