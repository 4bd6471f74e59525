import Adapters
import RetimeCLI
import Foundation
import Testing

/// A session records the device it was started on (issue 31): `status`
/// names it when it is another device sharing the data folder.
@Suite("A session names the device it was started on")
struct SessionDeviceEndToEndTests {
    func deviceID(home: String) throws -> String {
        try String(contentsOfFile: home + "/.local/state/retime/device-id", encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    func device(_ outcome: RetimeProcess.Outcome) -> [String: Any]? {
        (outcome.json["session"] as? [String: Any])?["device"] as? [String: Any]
    }

    @Test("status on the device that started it: device {id, name:null}, and no line about another device")
    func sameDevice() throws {
        let retime = RetimeProcess()
        try retime.run("start", "--for", "25m")
        let id = try deviceID(home: retime.dataDirectory + "-home")
        let status = try retime.run("status", "--json")
        #expect(device(status)?["id"] as? String == id)
        #expect(device(status)?["name"] is NSNull)
        let text = try retime.run("status")
        #expect(text.status == 0 && !text.out.contains("another device"), "\(text.out)")
    }

    @Test("status on another device sharing the folder names the device, by its name once it has one")
    func otherDevice() throws {
        var retime = RetimeProcess()
        try retime.run("start", "--for", "25m")
        let laptop = try deviceID(home: retime.dataDirectory + "-home")
        retime.environment["HOME"] = retime.dataDirectory + "-desktop"
        let bare = try retime.run("status")
        #expect(bare.status == 0 && bare.out.contains("started on another device: \(laptop)"), "\(bare.out)")
        #expect(device(try retime.run("status", "--json"))?["id"] as? String == laptop)

        try FileManager.default.createDirectory(atPath: retime.file("devices/\(laptop)"), withIntermediateDirectories: true)
        try Data(#"{"format":"retime.device","version":1,"name":"laptop","seen":{}}"#.utf8)
            .write(to: URL(fileURLWithPath: retime.file("devices/\(laptop)/device.json")))
        let named = try retime.run("status")
        #expect(named.out.contains("started on another device: laptop (\(laptop.prefix(8)))"), "\(named.out)")
        let json = try retime.run("status", "--json")
        #expect(device(json)?["id"] as? String == laptop && device(json)?["name"] as? String == "laptop")
    }

    @Test("log --json names the device each session was started on, whichever device ended it")
    func logNamesTheDevice() throws {
        var retime = RetimeProcess()
        try retime.run("device", "name", "laptop")
        try retime.run("start", "--for", "25m")
        let laptop = try deviceID(home: retime.dataDirectory + "-home")
        retime.environment["HOME"] = retime.dataDirectory + "-desktop"
        #expect(try retime.run("stop").status == 0)
        try retime.run("start", "--for", "25m")
        #expect(try retime.run("stop").status == 0)
        let desktop = try deviceID(home: retime.dataDirectory + "-desktop")
        let sessions = try #require(try retime.run("log", "--json").json["sessions"] as? [[String: Any]])
        let devices = sessions.map { $0["device"] as? [String: Any] }
        #expect(devices.count == 2)
        #expect(devices.last??["id"] as? String == laptop && devices.last??["name"] as? String == "laptop", "\(devices)")
        #expect(devices.first??["id"] as? String == desktop && devices.first??["name"] is NSNull, "\(devices)")
    }

    @Test("a session recorded before sessions named their device still reads: device null")
    func oldSession() throws {
        let retime = RetimeProcess()
        try retime.run("start", "--for", "25m")
        try RuntimeContext.store(of: retime.dataDirectory, environment: ["HOME": retime.dataDirectory + "-home"]).update("session") { values in
            guard case .object(var session)? = values["current"] else { return }
            session.removeValue(forKey: "device")
            values["current"] = .object(session)
        }
        let status = try retime.run("status", "--json")
        #expect(status.status == 0 && status.json["active"] as? Bool == true)
        #expect((status.json["session"] as? [String: Any])?["device"] is NSNull)
        #expect(try retime.run("stop").status == 0)
    }
}
