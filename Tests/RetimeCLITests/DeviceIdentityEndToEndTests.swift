import Foundation
import Testing

/// This device's id as a user of a synced data folder sees it (issue 31):
/// kept in the home's state directory, never in the data folder.
@Suite("The device id lives outside the data folder")
struct DeviceIdentityEndToEndTests {
    func stateFile(home: String) -> String { home + "/.local/state/retime/device-id" }

    func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    func historyFolders(_ retime: RetimeProcess) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: retime.file("history"))) ?? []).sorted()
    }

    @Test("a session's history goes to the folder of the id in the home's state directory; none is written into the data folder")
    func madeInTheStateDirectory() throws {
        let retime = RetimeProcess()
        try retime.run("start", "--for", "25m")
        #expect(try retime.run("stop").status == 0)
        let id = try #require(read(stateFile(home: retime.dataDirectory + "-home")))
        #expect(historyFolders(retime) == [id])
        #expect(!FileManager.default.fileExists(atPath: retime.file("device-id")))
    }

    @Test("$XDG_STATE_HOME is where the id is kept when it is set")
    func xdgStateHome() throws {
        var retime = RetimeProcess()
        retime.environment["XDG_STATE_HOME"] = retime.dataDirectory + "-state"
        try retime.run("start", "--for", "25m")
        try retime.run("stop")
        let id = try #require(read(retime.dataDirectory + "-state/retime/device-id"))
        #expect(historyFolders(retime) == [id])
    }

    @Test("two data directories under one home are one device; the same folder used from two homes is two devices")
    func homes() throws {
        var first = RetimeProcess(), second = RetimeProcess()
        let home = first.dataDirectory + "-home"
        second.environment["HOME"] = home
        for retime in [first, second] {
            try retime.run("start", "--for", "25m")
            try retime.run("stop")
        }
        #expect(historyFolders(first) == historyFolders(second) && historyFolders(first).count == 1)
        // The first data folder, synced to another machine (another home).
        first.environment["HOME"] = first.dataDirectory + "-elsewhere"
        try first.run("start", "--for", "25m")
        try first.run("stop")
        #expect(historyFolders(first).count == 2)
        #expect((try first.run("log", "--json").json["sessions"] as? [[String: Any]])?.count == 2)
    }

    @Test("a data folder from before keeps its device: DATA_DIR/device-id is adopted, renamed aside, and its history folder written on")
    func migratesTheOldID() throws {
        var retime = RetimeProcess()
        let old = UUID().uuidString.lowercased()
        try Data((old + "\n").utf8).write(to: URL(fileURLWithPath: retime.file("device-id")))
        try retime.run("start", "--for", "25m")
        #expect(try retime.run("stop").status == 0)
        #expect(read(stateFile(home: retime.dataDirectory + "-home")) == old)
        #expect(historyFolders(retime) == [old])
        #expect(!FileManager.default.fileExists(atPath: retime.file("device-id")))
        #expect(read(retime.file("device-id.migrated")) == old)
        #expect(try retime.run("doctor").status == 0)
        // Another machine that receives the folder afterwards makes an id of its own.
        retime.environment["HOME"] = retime.dataDirectory + "-elsewhere"
        try retime.run("start", "--for", "25m")
        try retime.run("stop")
        #expect(historyFolders(retime).count == 2 && read(stateFile(home: retime.dataDirectory + "-elsewhere")) != old)
    }
}
