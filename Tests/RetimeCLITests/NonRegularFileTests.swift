#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Runs retime and waits at most `seconds` for it: a command that would
/// hang on a FIFO is killed and reported as nil, never waited on forever.
func runWithin(_ seconds: Double, _ retime: RetimeProcess, _ arguments: [String], withDataDir: Bool = true) throws -> RetimeProcess.Outcome? {
    let running = try retime.start(arguments, withDataDir: withDataDir)
    guard eventually(within: seconds, { !running.process.isRunning }) else {
        kill(running.process.processIdentifier, SIGKILL)
        _ = try? retime.finish(running)
        return nil
    }
    return try retime.finish(running)
}

/// Issue 28, item 9: a FIFO, a socket, a device or a directory in place of a
/// data file is refused at once with the storage exit code, never waited
/// on; doctor names it and --repair moves it aside.
@Suite("Files that are not regular files")
struct NonRegularFileTests {
    let retime = RetimeProcess()

    @Test("a FIFO in place of the groups' change log: group list and doctor fail at once (exit 4); doctor --repair moves it aside")
    func fifoSuite() throws {
        for name in ["a", "b"] { try retime.run("group", "create", name) }
        let path = try retime.changeLog("groups")
        #expect(unlink(path) == 0 && mkfifo(path, 0o600) == 0)

        let list = try #require(try runWithin(10, retime, ["group", "list", "--json"]), "group list hung on the FIFO")
        #expect(list.status == 4)
        #expect(list.errorCode == "store.notRegularFile")
        #expect(list.err.contains(path) && list.err.contains("FIFO"), "\(list.err)")

        let doctor = try #require(try runWithin(10, retime, ["doctor", "--json"]), "doctor hung on the FIFO")
        #expect(doctor.status == 4)
        let checks = doctor.json["checks"] as? [[String: String]] ?? []
        #expect(checks.contains { $0["name"] == "groups data" && $0["status"] == "error" && ($0["detail"] ?? "").contains("FIFO") }, "\(checks)")

        let repaired = try #require(try runWithin(10, retime, ["doctor", "--repair"]), "doctor --repair hung")
        #expect(repaired.status == 0, "\(repaired.out)\(repaired.err)")
        let folder = (path as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("groups.jsonl.corrupt-") }
        #expect(aside.count == 1, "moved aside, not deleted")
        // The FIFO held nothing: the groups it replaced are gone, and the
        // folder reads again (a new log starts with the next change).
        #expect(try retime.run("group", "list", "--json").status == 0)
        #expect(try retime.run("group", "create", "c").status == 0)
    }

    @Test("a FIFO in place of a lock file, the audit trail or the daemon lock: commands fail or go on at once, never wait")
    func fifoElsewhere() throws {
        try retime.run("group", "create", "a")
        let lock = try retime.changeLog("groups", ending: ".lock")
        #expect(unlink(lock) == 0 && mkfifo(lock, 0o600) == 0)
        let create = try #require(try runWithin(10, retime, ["group", "create", "b"]), "a write hung on the FIFO lock")
        #expect(create.status == 4 && create.err.contains("not a regular file"), "\(create.err)")
        #expect(mkfifo(try retime.deviceFile("daemon.lock"), 0o600) == 0)
        let status = try #require(try runWithin(10, retime, ["daemon", "status"]), "daemon status hung on a FIFO lock")
        #expect(status.status != -SIGKILL)
        let repaired = try #require(try runWithin(10, retime, ["doctor", "--repair", "--json"]), "doctor --repair hung")
        let fileTypes = (repaired.json["checks"] as? [[String: String]])?.first { $0["name"] == "file types" }
        #expect(fileTypes?["status"] == "repaired", "\(repaired.out)")
        #expect(try retime.run("group", "create", "b").status == 0)
    }

    @Test("a history segment replaced by a directory: stop says why (exit 4), later commands go on, start says what to do, doctor --repair mends it")
    func directorySegment() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work", "--for", "30m").status == 0)
        #expect(try retime.run("stop").status == 0)
        let device = try #require(try FileManager.default.contentsOfDirectory(atPath: retime.file("history")).first { !$0.hasPrefix(".") })
        let folder = retime.file("history/" + device)
        let segment = folder + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".jsonl") && $0 != "amendments.jsonl" }))
        #expect(unlink(segment) == 0 && mkdir(segment, 0o700) == 0)

        #expect(try retime.run("start", "work", "--for", "30m").status == 0)
        let stop = try retime.run("stop", "--json")
        #expect(stop.status == 4)
        #expect(stop.errorCode == "history.notWritten")
        #expect(stop.err.contains(segment) && stop.err.contains("doctor --repair"), "\(stop.err)")

        // Not every later command fails: the ended session waits in the slot.
        for command in [["status"], ["group", "list"], ["config", "list"]] {
            let outcome = try retime.run(command)
            #expect(outcome.status == 0, "\(command): \(outcome.err)")
        }
        let start = try retime.run("start", "work", "--for", "5m")
        #expect(start.status == 4 && start.err.contains("doctor --repair"), "\(start.err)")

        let doctor = try retime.run("doctor", "--json")
        #expect(doctor.status == 4)
        #expect((doctor.json["checks"] as? [[String: String]])?.contains { $0["name"] == "file types" && ($0["detail"] ?? "").contains(segment) } == true)
        let repaired = try retime.run("doctor", "--repair", "--json")
        #expect((repaired.json["checks"] as? [[String: String]])?.first { $0["name"] == "file types" }?["status"] == "repaired", "\(repaired.out)")
        var isDirectory: ObjCBool = false
        #expect(!FileManager.default.fileExists(atPath: segment, isDirectory: &isDirectory) || !isDirectory.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.hasPrefix((segment as NSString).lastPathComponent + ".corrupt-") })

        // The next command writes the waiting session to history.
        #expect(try retime.run("status").status == 0)
        let log = try retime.run("log", "--json")
        #expect(log.status == 0, "\(log.err)")
        #expect((log.json["sessions"] as? [[String: Any]])?.count == 1, "the session that waited is in history")
        #expect(try retime.run("start", "work", "--for", "5m").status == 0)
    }
}

/// The system service's state: a FIFO in it never keeps the socket from
/// opening, and a directory another user could write is refused.
@Suite("The system service's state directory", .serialized, .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemStateDirectoryTests {
    @Test("a FIFO at STATE/blocks.json: the service still opens its socket, answers, and does not hang")
    func fifoBlocks() throws {
        let system = try SystemServiceHarness()
        #expect(mkdir(system.state, 0o700) == 0)
        #expect(mkfifo(system.state + "/blocks.json", 0o600) == 0)
        let service = try system.start()
        let opened = FileManager.default.fileExists(atPath: system.socket)
        // A service stuck opening the FIFO has its signals blocked: KILL it.
        defer { system.stop(service, signal: opened ? SIGTERM : SIGKILL) }
        #expect(opened, "the socket opened")
        let status = try #require(try runWithin(10, system.client(), ["system", "status", "--json"]))
        // It answers at once, and says which file is in the way.
        #expect(status.err.contains("blocks.json is a FIFO"), "\(status.status) \(status.out)\(status.err)")
    }

    @Test("--firewall nftables where nft is refused (a user namespace's root): exit 1, the code, the reason and a hint; no socket")
    func firewallRefused() throws {
        let system = try SystemServiceHarness()
        var retime = RetimeProcess()
        // Root of a user namespace of its own: nft may not touch the host's tables.
        retime.launcher = ["/usr/bin/unshare", "--user", "--map-root-user"]
        let outcome = try #require(try runWithin(15, retime,
                                                 ["system", "run", "--socket", system.socket, "--state-dir", system.state, "--hosts-file",
                                                  system.hosts, "--firewall", "nftables", "--apps", "off", "--names", "hosts"],
                                                 withDataDir: false))
        #expect(outcome.status == 1, "\(outcome.out)\(outcome.err)")
        #expect(outcome.err.contains("the firewall layer cannot run: ") && outcome.err.contains("install nftables, or run with --firewall auto or off"),
                "\(outcome.err)")
        #expect(!FileManager.default.fileExists(atPath: system.socket))
    }

    @Test("a state directory another user owns, or others may write, is refused at start with the reason")
    func unsafeState() throws {
        for make in ["owned by nobody", "mode 0777"] {
            let system = try SystemServiceHarness()
            #expect(mkdir(system.state, 0o700) == 0)
            if make == "owned by nobody" { #expect(chown(system.state, 65_534, 65_534) == 0) } else { #expect(chmod(system.state, 0o777) == 0) }
            let outcome = try #require(try runWithin(15, RetimeProcess(),
                                                     ["system", "run", "--socket", system.socket, "--state-dir", system.state,
                                                      "--hosts-file", system.hosts, "--firewall", "off", "--apps", "off", "--names", "hosts"], withDataDir: false))
            #expect(outcome.status == 1, "\(make): \(outcome.err)")
            #expect(outcome.err.contains("refusing the state directory") && outcome.err.contains(system.state), "\(make): \(outcome.err)")
            #expect(!FileManager.default.fileExists(atPath: system.socket))
            var info = stat()
            #expect(stat(system.state, &info) == 0 && (make != "mode 0777" || info.st_mode & 0o777 == 0o777), "left as it was")
        }
    }
}
