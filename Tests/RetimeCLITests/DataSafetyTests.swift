#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Foundation
import RetimeCLI
import Testing

@Suite("Damaged data and concurrent processes")
struct DataSafetyTests {
    let retime = RetimeProcess()

    @Test("a corrupt or unreadable data file makes commands exit 4 naming it, and it stays as it was", arguments: [
        "{\"format\":\"retime.suite\",\"vers", "", "garbage",
    ])
    func corruptFile(content: String) throws {
        try retime.run("group", "create", "work")
        let path = try retime.changeLog("groups")
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["group", "list"], ["start", "work"], ["group", "create", "x"]] {
            let outcome = try retime.run(arguments + ["--json"])
            #expect(outcome.status == 4, "\(arguments)")
            #expect(outcome.err.contains(path), "\(arguments)")
            #expect(outcome.errorCode == "store.corrupted")
            #expect(outcome.err.contains("\nhint: 'retime doctor' checks every file"), "the way out is named")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(content.utf8))
    }

    @Test("a setting of the wrong shape, written by hand: commands say which key and what is wrong (exit 4), doctor names the way out, unset mends it")
    func settingOfWrongShape() throws {
        try retime.run("group", "create", "work")
        try retime.run("config", "set", "notify", "off")
        let path = try retime.changeLog("config")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "\"value\":\"off\"", with: "\"value\":5").write(toFile: path, atomically: true, encoding: .utf8)
        let start = try retime.run("start", "work", "--for", "25m")
        #expect(start.status == 4 && start.err.contains("the value of 'notify' has an unexpected shape: expected a string, found a number"),
                "\(start.err)")
        #expect(!start.err.contains("DecodingError"), "no Swift type names: \(start.err)")
        let doctor = try retime.run("doctor")
        #expect(doctor.prose.contains("'notify' is not a value retime reads") && doctor.prose.contains("'retime config unset notify'"),
                "\(doctor.out)")
        #expect(!doctor.out.contains("Domain.") && !doctor.out.contains("container"), "no wiring talk for damaged data: \(doctor.out)")
        #expect(try retime.run("config", "unset", "notify").status == 0)
        #expect(try retime.run("start", "work", "--for", "25m").status == 0)
        #expect(try retime.run("doctor").prose.contains("settings: all defaults"))
    }

    @Test("a data file without read permission is a storage error naming it, also when run as root")
    func unreadable() throws {
        var retime = retime
        try retime.run("group", "create", "work")
        let path = try retime.changeLog("groups")
        if getuid() == 0 {
            // Root reads any file: hand the data to nobody and run as nobody.
            for item in [""] + (FileManager.default.subpaths(atPath: retime.dataDirectory) ?? []) {
                #expect(chown(retime.file(item), 65_534, 65_534) == 0)
            }
            // And the home with the device id (its state directory): nobody's own.
            let home = retime.dataDirectory + "-home"
            for item in [""] + (FileManager.default.subpaths(atPath: home) ?? []) { #expect(chown(home + "/" + item, 65_534, 65_534) == 0) }
            retime.launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
        #expect(chmod(path, 0) == 0)
        let outcome = try retime.run("group", "list", "--json")
        #expect(outcome.status == 4)
        #expect(outcome.err.contains(path))
        #expect(outcome.errorCode == "store.unreadable")
    }

    @Test("doctor reports a damaged change log; --repair moves it aside, keeps every line that can be read and puts back the rest from its last good copy")
    func doctorRepair() throws {
        for name in ["a", "b", "c"] { try retime.run("group", "create", name) }
        let path = try retime.changeLog("groups")
        // The line that made "b" damaged, the others as they were.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[1].contains("\"b\""))
        lines[1] = "{\"at\":\"17950" + String(repeating: "\u{0}", count: 8)
        let damaged = Data((lines.joined(separator: "\n") + "\n").utf8)
        try damaged.write(to: URL(fileURLWithPath: path))

        let report = try retime.run("doctor", "--json")
        #expect(report.status == 4)
        let checks = report.json["checks"] as? [[String: String]] ?? []
        #expect(checks.contains { $0["name"] == "groups data" && $0["status"] == "error" && ($0["detail"] ?? "").contains(path) })

        let repaired = try retime.run("doctor", "--repair", "--json")
        #expect(repaired.status == 0)
        let detail = (repaired.json["checks"] as? [[String: String]])?.first { $0["name"] == "groups data" }?["detail"] ?? ""
        #expect(detail.contains("moved the damaged file") && detail.contains("kept its 2 readable line(s)")
                && detail.contains("put back 1 line(s) of its last good copy") && detail.contains("1 unreadable line(s) left out"),
                "\(detail)")
        let folder = (path as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("groups.jsonl.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + aside[0])) == damaged)
        let names = (try retime.run("group", "list", "--json").json["groups"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["a", "b", "c"], "every readable line kept, and the damaged one's group from the good copy")
        #expect(try retime.run("doctor").status == 0)
    }

    @Test("doctor warns when others can read the data directory, and --repair makes it 0700")
    func dataDirectoryMode() throws {
        try retime.run("group", "create", "work")
        let directory = retime.dataDirectory
        #expect(chmod(directory, 0o755) == 0)
        func check(_ arguments: String...) throws -> [String: String]? {
            (try retime.run(arguments + ["--json"]).json["checks"] as? [[String: String]])?.first { $0["name"] == "data directory" }
        }
        let found = try check("doctor")
        #expect(found?["status"] == "warning" && (found?["detail"] ?? "").contains("mode 755"))
        #expect(try check("doctor", "--repair")?["status"] == "repaired")
        var info = stat()
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(try check("doctor")?["status"] == "ok")
    }

    @Test("doctor finds a block left up by a session that ended in a crash, and --repair lifts it")
    func staleBlock() throws {
        try retime.run("group", "create", "work", "--block", "example.com")
        try retime.run("start", "work")
        // The crash: the session left the slot, its block was never lowered.
        try RuntimeContext.store(of: retime.dataDirectory, environment: ["HOME": retime.dataDirectory + "-home"]).update("session") { $0.removeAll() }
        let report = try retime.run("doctor", "--json")
        let blocks = (report.json["checks"] as? [[String: String]])?.first { $0["name"] == "blocks" }
        #expect(blocks?["status"] == "warning")
        let repaired = try retime.run("doctor", "--repair", "--json")
        #expect((repaired.json["checks"] as? [[String: String]])?.first { $0["name"] == "blocks" }?["status"] == "repaired")
        #expect(try JSONFileStore(directory: retime.deviceFile("store")).values(of: "shield").isEmpty)
    }

    @Test("a damaged device-id: stop says so and changes nothing, doctor finds it, --repair recovers the id and stop works")
    func damagedDeviceID() throws {
        let deviceFile = retime.dataDirectory + "-home/.local/state/retime/device-id"
        try retime.run("start", "--for", "25m")
        try retime.run("stop")                               // the first session makes the id and its folder
        let id = try String(contentsOfFile: deviceFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        try retime.run("start", "--for", "25m")
        try Data(id.prefix(4).utf8).write(to: URL(fileURLWithPath: deviceFile))
        let stop = try retime.run("stop", "--json")
        #expect(stop.status == 4 && stop.err.contains("device-id") && stop.err.contains("doctor"), "\(stop.err)")

        let found = try retime.run("doctor", "--json")
        #expect(found.status == 4)
        let device = (found.json["checks"] as? [[String: String]])?.first { $0["name"] == "device id" }
        #expect(device?["status"] == "error")
        let repaired = try retime.run("doctor", "--repair", "--json")
        let detail = (repaired.json["checks"] as? [[String: String]])?.first { $0["name"] == "device id" }?["detail"] ?? ""
        #expect(detail.contains("recovered \(id)"), "\(detail)")
        #expect(try String(contentsOfFile: deviceFile, encoding: .utf8).hasPrefix(id))
        // The stop that could not say which device it was changed nothing
        // (this device's change log is named by its id): the session still
        // runs, and stops now; both sessions are in history, in one folder.
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        #expect(try retime.run("stop").status == 0)
        #expect((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: retime.file("history")) == [id])
        #expect(try retime.run("doctor").status == 0)
    }

    @Test("20 concurrent group creates with distinct names all survive")
    func concurrentCreates() throws {
        try retime.run("group", "list")
        let running = try (0..<20).map { try retime.start(["group", "create", "g\($0)"]) }
        let outcomes = try running.map(retime.finish)
        #expect(outcomes.allSatisfy { $0.status == 0 })
        let names = (try retime.run("group", "list", "--json").json["groups"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(names ?? []) == Set((0..<20).map { "g\($0)" }))
    }

    @Test("10 concurrent commands after a session expired leave exactly one history entry")
    func concurrentReconcile() throws {
        try retime.run("start", "--for", "1s")
        Thread.sleep(forTimeInterval: 1.2) // let the real one-second session expire
        let commands: [[String]] = [["status"], ["log"], ["group", "list"], ["status"], ["config", "list"],
                                    ["log"], ["status"], ["group", "list"], ["status"], ["log"]]
        let running = try commands.map { try retime.start($0) }
        #expect(try running.map(retime.finish).allSatisfy { $0.status == 0 })
        let history = try retime.run("log", "--json").json["sessions"] as? [[String: Any]]
        #expect(history?.count == 1)
        #expect(history?.first?["outcome"] as? String == "completed")
        let lines = try FileManager.default.subpathsOfDirectory(atPath: retime.file("history")).filter { $0.hasSuffix(".jsonl") }
            .map { try String(contentsOfFile: retime.file("history/" + $0), encoding: .utf8) }.joined().split(separator: "\n")
        #expect(lines.count == 1, "one line on disk, not merely one after de-duplication")
    }
}
