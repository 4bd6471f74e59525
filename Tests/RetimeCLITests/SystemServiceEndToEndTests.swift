#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The system service for real: run as root on temporary files, asked by
/// unprivileged users (semantics.md, "The system service").
@Suite("The system service end to end", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct SystemServiceEndToEndTests {
    @Test("a user's strict block survives every escape through the user's own data, and another user's requests")
    func escapes() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        let start = try user.run("start", "work", "--for", "30m", "--strict")
        #expect(start.status == 0 && start.prose.contains("Blocking 1 site"), "\(start.out) \(start.err)")
        #expect(system.blocked == ["example.com"])

        // The session made not strict by hand: stop ends it in history, the block stays.
        let session = try user.changeLog("session")
        let edited = try String(contentsOfFile: session, encoding: .utf8).replacingOccurrences(of: "\"strict\":true", with: "\"strict\":false")
        try edited.write(toFile: session, atomically: false, encoding: .utf8)   // in place: still the user's file
        let stop = try user.run("stop", "--json")
        #expect(stop.status == 4 && stop.err.contains("system service holds this strict block until "), "\(stop.err)")
        #expect(system.blocked == ["example.com"])

        // The data directory deleted, repaired, replaced by another: the block stays.
        try FileManager.default.removeItem(atPath: user.dataDirectory)
        _ = try user.run("doctor", "--repair")
        let other = system.client()
        _ = try other.run("doctor", "--repair")
        let restart = try other.run("start", "--for", "1m")
        #expect(restart.status != 0, "a new session cannot replace a strict block: \(restart.out)")
        #expect(system.blocked == ["example.com"])

        // Another user sees none of it and cannot lower it, even naming its session.
        let held = try #require((try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]])?.first?["session"] as? String)
        let lower = Process()
        lower.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        lower.arguments = ["--reuid=4242", "--regid=4242", "--clear-groups", "/usr/bin/python3", "-c", """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.sendall(b'{"version":1,"op":"lower","session":"' + sys.argv[2].encode() + b'"}\\n'); print(s.recv(4096))
            """, system.socket, held]
        let answer = Pipe()
        lower.standardOutput = answer
        try lower.run()
        lower.waitUntilExit()
        let said = String(decoding: answer.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lower.terminationStatus == 0 && said.contains("\"ok\":true"), "the request reached the service: \(said)")
        #expect(system.blocked == ["example.com"], "another uid's lower of the session lifts nothing")
        let stranger = system.client(uid: 4_242)
        let status = try stranger.run("system", "status", "--json")
        #expect((status.json["blocks"] as? [Any])?.isEmpty == true)
        #expect(try stranger.run("system", "release", "--all").status != 0, "only root releases")
        #expect(system.blocked == ["example.com"])

        // Its own user still sees it, strict, with its end.
        let mine = try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]] ?? []
        #expect(mine.count == 1 && mine.first?["strict"] as? Bool == true && (mine.first?["endsAfterSeconds"] as? Double ?? 0) > 1_700)

        // Root may: audited, and the file is as it was.
        #expect(try system.rootClient().run(["system", "release", "--all"], withDataDir: false).status == 0)
        #expect(system.blocked.isEmpty)
        #expect(try String(contentsOfFile: system.hosts, encoding: .utf8) == SystemServiceHarness.original)
    }

    @Test("the service lifts a block at its end with no client running; a non-strict block is lowered by its user")
    func liftsAtEnd() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "2s", "--strict").status == 0)
        #expect(system.blocked == ["example.com"])
        #expect(eventually(within: 6) { system.blocked.isEmpty }, "lifted by the service on its own")
        #expect(try user.run("start", "work").status == 0)
        #expect(system.blocked == ["example.com"])
        #expect(try user.run("stop").status == 0)
        #expect(system.blocked.isEmpty)
    }

    @Test("start asks the service once: the raise, whose answer also says what its layers cover (issue 30)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func startAsksOnce() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        var user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        let trace = system.root + "/connects"
        user.launcher = ["/usr/bin/strace", "-f", "-qq", "-e", "trace=connect", "-o", trace] + user.launcher
        let start = try user.run("start", "work")
        #expect(start.status == 0 && start.prose.contains("Blocking 1 site"), "\(start.out) \(start.err)")
        let connects = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains(system.socket) }
        #expect(connects.count == 1, "\(connects.joined(separator: "\n"))")
        #expect(system.blocked == ["example.com"])
    }

    @Test("with the service gone, stop says it cannot be reached (exit 4) and never that the block was lifted")
    func unreachable() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work").status == 0)
        system.stop(service)
        let stop = try user.run("stop", "--json")
        #expect(stop.status == 4 && stop.err.contains("cannot be reached"), "\(stop.err)")
        #expect(stop.errorCode == "shield.notLifted")
        #expect(system.blocked == ["example.com"])
    }

    @Test("a hosts file that cannot be replaced (a bind mount, as in containers) is written in place",
          .enabled(if: SystemServiceHarness.canFakeReboot, "needs a mount namespace"))
    func bindMountedHosts() throws {
        let system = try SystemServiceHarness()
        let source = system.root + "/real-hosts"
        try SystemServiceHarness.original.write(toFile: source, atomically: true, encoding: .utf8)
        // The service runs where the hosts file is a bind mount of another file.
        let service = try system.start(launcher: [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "--fork",
            "/bin/sh", "-c", "mount --bind \"$RETIME_TEST_SOURCE\" \"$RETIME_TEST_TARGET\" && exec \"$0\" \"$@\"",
        ], environment: ["RETIME_TEST_SOURCE": source, "RETIME_TEST_TARGET": system.hosts])
        defer { system.stop(service) }
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work").status == 0)
        let written = try String(contentsOfFile: source, encoding: .utf8)
        #expect(written.hasPrefix(SystemServiceHarness.original) && written.contains("0.0.0.0 example.com"), "\(written)")
        let strays = try FileManager.default.contentsOfDirectory(atPath: system.root).filter { $0.contains(".tmp-") }
        #expect(strays.isEmpty, "no temp copy left: \(strays)")
    }

    @Test("killed with SIGKILL and started again, the service restores its blocks, also one removed by hand meanwhile")
    func restoresAfterKill() throws {
        let system = try SystemServiceHarness()
        var service = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        system.stop(service, signal: SIGKILL)
        try SystemServiceHarness.original.write(toFile: system.hosts, atomically: true, encoding: .utf8)
        // What a write killed mid-way leaves (a writer that is gone).
        for stray in [system.hosts + ".tmp-2147483000-1", system.state + "/blocks.json.tmp-2147483000-2"] {
            #expect(FileManager.default.createFile(atPath: stray, contents: Data("half".utf8)))
        }
        service = try system.start()
        defer { system.stop(service) }
        #expect(eventually(within: 5) { system.blocked == ["example.com"] })
        let left = (try FileManager.default.contentsOfDirectory(atPath: system.root) + FileManager.default.contentsOfDirectory(atPath: system.state))
            .filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "the service removed what killed writes left: \(left)")
        // Removed by hand while it runs: put back at once.
        try SystemServiceHarness.original.write(toFile: system.hosts, atomically: false, encoding: .utf8)
        #expect(eventually(within: 5) { system.blocked == ["example.com"] }, "restored after a hand edit")
    }

    @Test("two users' blocks merge: a domain both block stays blocked until both are lowered")
    func merged() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        defer { system.stop(service) }
        let first = system.client(uid: 65_534), second = system.client(uid: 4_243)
        try first.run("group", "create", "g", "--block", "example.com", "--block", "one.example")
        try second.run("group", "create", "g", "--block", "example.com", "--block", "two.example")
        #expect(try first.run("start", "g").status == 0)
        #expect(try second.run("start", "g").status == 0)
        #expect(Set(system.blocked) == ["example.com", "one.example", "two.example"])
        #expect(try first.run("stop").status == 0)
        #expect(Set(system.blocked) == ["example.com", "two.example"])
        #expect(try second.run("stop").status == 0)
        #expect(system.blocked.isEmpty)
    }

    @Test("after a simulated reboot (another boot id, the boot-time clock back near zero) a strict block is restored with the time it still owes",
          .enabled(if: SystemServiceHarness.canFakeReboot, "needs mount and time namespaces"))
    func reboot() throws {
        let system = try SystemServiceHarness()
        var service = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        system.stop(service)                                   // TERM: its progress is written
        try SystemServiceHarness.original.write(toFile: system.hosts, atomically: true, encoding: .utf8)

        // Another boot, as the service sees it: a boot id of its own (a file
        // bind-mounted over the kernel's) and a boot-time clock at a few
        // seconds (a time namespace); the wall clock is the machine's.
        let bootID = system.root + "/boot_id"
        try "00000000-1111-2222-3333-444444444444\n".write(toFile: bootID, atomically: true, encoding: .utf8)
        let uptime = Int(Double(try String(contentsOfFile: "/proc/uptime", encoding: .utf8).split(separator: " ")[0]) ?? 0)
        service = try system.start(launcher: [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "--time", "--boottime", "-\(max(0, uptime - 5))", "--fork",
            "/bin/sh", "-c", "mount --bind \"$RETIME_TEST_BOOT_ID\" /proc/sys/kernel/random/boot_id && exec \"$0\" \"$@\"",
        ], environment: ["RETIME_TEST_BOOT_ID": bootID])
        defer { system.stop(service) }
        #expect(eventually(within: 5) { system.blocked == ["example.com"] }, "restored before anyone asks")
        let held = try user.run("system", "status", "--json").json["blocks"] as? [[String: Any]] ?? []
        #expect(held.first?["strict"] as? Bool == true)
        #expect((held.first?["endsAfterSeconds"] as? Double ?? 0) > 1_700, "it still owes its time: \(held)")
        let stored = try String(contentsOfFile: system.state + "/blocks.json", encoding: .utf8)
        #expect(stored.contains("00000000-1111-2222-3333-444444444444"), "its progress is counted on the new boot's clock")
        #expect(try user.run("stop").status != 0 && system.blocked == ["example.com"])
    }
}
