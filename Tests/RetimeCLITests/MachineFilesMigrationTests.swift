import Adapters
import Foundation
import JSONDocument
import Testing

/// A data folder of the layout before per-device folders keeps this
/// machine's files at its top (`store/shield.json`, `events.jsonl`, ...),
/// where a sync tool would carry them to another machine. The real binary
/// moves them into `devices/<id>/` on first use, losslessly, however often
/// it is killed while doing so (docs/storage.md, "Devices").
@Suite struct MachineFilesMigrationTests {
    let retime = RetimeProcess()
    let logs: [String: String] = ["events.jsonl": "{\"name\":\"new\"}\n", "events.jsonl.1": "{\"name\":\"old\"}\n",
                                  "audit.jsonl": "{\"ok\":false}\n", "logs/daemon.log": "daemon said\n", "logs/hooks.log": "hook said\n"]

    /// The old layout: the shield's record (with a backup), the settings with
    /// machine keys among them, the logs.
    func oldLayout() throws -> [String: JSONValue] {
        let store = JSONFileStore(directory: retime.file("store"))
        try store.update("shield") { $0["block"] = .object(["targets": .array([.string("first.example")])]) }
        try store.update("shield") { $0["block"] = .object(["targets": .array([.string("example.com")])]) }
        try store.update("config") { $0 = ["shield": .string("none"), "log.level": .string("debug"), "defaultGroup": .string("work")] }
        try FileManager.default.createDirectory(atPath: retime.file("logs"), withIntermediateDirectories: true)
        for (name, text) in logs { try Data(text.utf8).write(to: URL(fileURLWithPath: retime.file(name))) }
        return try store.values(of: "shield")
    }

    /// Runs `config list` (which finishes any move a killed run began) and
    /// checks every file is in its new place, and only there.
    func expectMoved(_ shield: [String: JSONValue]) throws {
        let list = try retime.run("config", "list", "--json")
        #expect(list.status == 0, "\(list.err)")
        for expected in ["\"shield\"", "\"none\"", "\"debug\"", "\"work\""] { #expect(list.out.contains(expected), "\(list.out)") }
        let device = JSONFileStore(directory: try retime.deviceFile("store"))
        #expect(try device.values(of: "shield") == shield)
        #expect(try device.backupPaths(of: "shield").count == 1, "the backup moved with it")
        #expect(!FileManager.default.fileExists(atPath: retime.file("store/shield.json")))
        for (name, text) in logs {
            #expect(FileManager.default.contents(atPath: try retime.deviceFile(name)) == Data(text.utf8), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: retime.file(name)), "\(name) left at the top")
        }
        let machine = try device.values(of: "machine")
        #expect(machine["shield"] == .string("none") && machine["log.level"] == .string("debug") && machine["defaultGroup"] == nil)
    }

    @Test("the machine's files of the old layout move into devices/<id>/ on first use, the machine's settings into its own suite")
    func movesOnFirstUse() throws {
        let shield = try oldLayout()
        #expect(try retime.run("status").status == 0)
        try expectMoved(shield)
        #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: try retime.changeLog("config"))), as: UTF8.self).contains("log.level"),
                "a machine's setting never enters the shared log")
    }

    @Test("killed at 120 random instants while moving them, the next run finishes the move and nothing is lost")
    func killedWhileMoving() throws {
        var interrupted = 0
        // The instants are drawn below a bound that follows the move's end:
        // a kill that came after the move finished lowers it to that kill's
        // delay, one that came before raises it a little. So the kills
        // cluster around the move however fast this build and machine run
        // it (a release binary moves in a few milliseconds).
        var bound: UInt32 = 20_000
        for _ in 0..<120 {
            let folder = MachineFilesMigrationTests()
            let shield = try folder.oldLayout()
            let running = try folder.retime.start(["config", "list"])
            let delay = UInt32.random(in: 0...bound)
            usleep(delay)
            kill(running.process.processIdentifier, SIGKILL)
            _ = try folder.retime.finish(running)
            if FileManager.default.fileExists(atPath: folder.retime.file("events.jsonl")) {
                interrupted += 1
                bound = min(20_000, bound + bound / 8 + 100)
            } else {
                bound = delay
            }
            try folder.expectMoved(shield)
        }
        // Many kills land before the move finished; the states a kill
        // inside one move leaves are LocalDeviceFolderTests'.
        #expect(interrupted > 10, "\(interrupted)")
    }

    @Test("a daemon of the old layout still holding DATA_DIR/daemon.lock is seen by daemon status and stops a second daemon")
    func oldDaemonLockSeen() throws {
        let path = retime.file("daemon.lock")
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        _ = "\(getpid())\n".withCString { write(fd, $0, strlen($0)) }
        // The first use moves the lock file (the held inode goes with it)...
        let status = try retime.run("daemon", "status", "--json")
        #expect(status.out.contains("\(getpid())"), "\(status.out) \(status.err)")
        // ...and an old daemon that made its lock again at the top is still seen.
        let again = open(path, O_RDWR | O_CREAT, 0o600)
        defer { close(again) }
        #expect(again >= 0 && flock(again, LOCK_EX | LOCK_NB) == 0)
        _ = "\(getpid())\n".withCString { write(again, $0, strlen($0)) }
        flock(fd, LOCK_UN)
        #expect(try retime.run("daemon", "status", "--json").out.contains("\(getpid())"))
        let second = try retime.run("daemon", "run")
        #expect(second.status != 0 && second.err.contains("already runs"), "\(second.err)")
    }

    @Test("doctor looks in this device's folder: a damaged machine suite is found and restored, a FIFO for its events found")
    func doctorLooksInTheDeviceFolder() throws {
        try retime.run("config", "set", "shield", "none")
        try retime.run("config", "set", "log.level", "info")   // a second write: machine.json has a backup
        let machine = try retime.deviceFile("store/machine.json")
        try Data("{\"format".utf8).write(to: URL(fileURLWithPath: machine))
        #expect(mkfifo(try retime.deviceFile("events.jsonl"), 0o600) == 0)
        let found = try retime.run("doctor", "--json")
        let checks = (found.json["checks"] as? [[String: String]]) ?? []
        #expect(checks.first { $0["name"] == "machine data" }?["status"] == "error", "\(found.out)")
        #expect(checks.first { $0["name"] == "file types" }?["detail"]?.contains("events.jsonl") == true, "\(found.out)")
        let repaired = try retime.run("doctor", "--repair", "--json")
        let after = (repaired.json["checks"] as? [[String: String]]) ?? []
        #expect(after.first { $0["name"] == "machine data" }?["status"] == "repaired", "\(repaired.out)")
        #expect(try retime.run("config", "get", "shield").out.contains("none"))
    }
}
