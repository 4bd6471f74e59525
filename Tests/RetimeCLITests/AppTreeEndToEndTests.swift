#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A user who tries to keep a blocked app running (issue 28, item 4), with
/// the real service as root and the user unprivileged: `app:python3`
/// blocked, the user runs python by its real name (what `/usr/bin/python3`
/// links to), through a hard link, under `exec -a`, forks it while it
/// ignores SIGTERM, leaves a child running another program, and forks a
/// chain whose every link exits at once, and starts a job before becoming
/// python. Each process is ended within the grace; another user's python
/// and the user's other programs run on.
/// The users are the suite's own, so no other test's process is touched.
@Suite("A blocked app by its executable and its whole tree",
       .enabled(if: SystemServiceHarness.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct AppTreeEndToEndTests {
    static let python = "/usr/bin/python3"
    /// What `python3` is: the file the symlinks lead to.
    static var real: String { URL(fileURLWithPath: python).resolvingSymlinksInPath().path }

    /// Starts `script` under `shell` as `uid`, and reads the pids it prints
    /// on its first line (none when it prints none, or is ended first).
    static func spawn(_ script: String, as uid: UInt32, shell: String = "/bin/sh", reads: Bool = false) throws -> (Process, [Int32]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", shell, "-c", script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard reads else { return (process, []) }
        // A line may come in pieces; an empty read is its end.
        var line = ""
        while !line.contains("\n") {
            let piece = out.fileHandleForReading.availableData
            if piece.isEmpty { break }
            line += String(decoding: piece, as: UTF8.self)
        }
        return (process, line.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
    }

    /// A python program for `sh -c`: `code` runs with SIGTERM ignored
    /// when `ignoresTerm` (the shell's trap is inherited through exec).
    static func program(_ code: String, ignoresTerm: Bool = true, as executable: String = python) -> String {
        (ignoresTerm ? "trap '' TERM; " : "") + "exec \(executable) -c '\(code)'"
    }

    /// Whether `pid` has ended: gone, or a zombie nobody has reaped yet.
    static func gone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.split(separator: " ").first else { return true }
        return state == "Z" || state == "X"
    }

    /// The live processes of `uid` running `executable`.
    static func running(_ executable: String, uid: UInt32) -> [Int32] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        return pids.filter { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })?
                    .split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first == Substring("\(uid)"),
                  let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else { return false }
            return exe == executable && !gone(pid)
        }
    }

    /// Ends whatever the test's users still run.
    static func cleanUp(_ uids: [UInt32]) {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        for pid in pids {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let uid = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })?
                    .split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first,
                  uids.map(String.init).contains(String(uid)) else { continue }
            kill(pid, SIGKILL)
        }
    }

    /// A hard link to python in a directory of the test's, when that can be
    /// on python's file system (a hard link cannot cross one).
    static func hardLink() throws -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-apptree-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var here = stat(), there = stat()
        guard stat(directory, &here) == 0, stat(real, &there) == 0, here.st_dev == there.st_dev else { return nil }
        let path = directory + "/rtpy" + String(UUID().uuidString.prefix(6)).lowercased()
        guard link(real, path) == 0 else { return nil }
        return path
    }

    /// The users of one test: one per attempt (so that one attempt's
    /// process being ended never bears on another's), and another user.
    struct Users {
        var base: UInt32
        var fork: UInt32 { base }
        var tree: UInt32 { base + 1 }
        var realName: UInt32 { base + 2 }
        var execA: UInt32 { base + 3 }
        var hardLink: UInt32 { base + 4 }
        var chain: UInt32 { base + 5 }
        var before: UInt32 { base + 6 }
        var other: UInt32 { base + 9 }
        var blocking: [UInt32] { (0..<7).map { base + $0 } }
        var all: [UInt32] { blocking + [other] }
    }

    /// Blocks `app:python3` for each blocking user, through `client`.
    static func block(_ users: Users, client: (UInt32) -> RetimeProcess) throws {
        for uid in users.blocking {
            let user = client(uid)
            #expect(try user.run("group", "create", "snakes", "--block", "app:python3").status == 0)
            #expect(try user.run("start", "snakes", "--for", "30m").status == 0)
        }
    }

    /// Every way in the issue to keep python running, each expected to end
    /// within `seconds`; another user's python and a blocking user's
    /// `sleep` expected to run on.
    static func attempts(_ users: Users, within seconds: Double) throws {
        defer { cleanUp(users.all) }
        let (others, _) = try spawn(program("import time; time.sleep(600)", ignoresTerm: false), as: users.other)
        let (sleeper, _) = try spawn("exec /bin/sleep 600", as: users.fork)
        #expect(eventually(within: 10) { running(real, uid: users.other).contains(others.processIdentifier) }, "another user's python runs")

        // The issue's reproduction: the fork survived, 5/5.
        let (_, forked) = try spawn(program("import os, time; child = os.fork(); child and print(os.getpid(), child, flush=True); time.sleep(600)"),
                                    as: users.fork, reads: true)
        // A child running another program, forked while python ignores TERM.
        let (_, tree) = try spawn(program("import os, subprocess, time; child = subprocess.Popen([\"/bin/sleep\", \"600\"]); "
                                          + "print(os.getpid(), child.pid, flush=True); time.sleep(600)"), as: users.tree, reads: true)
        // python under other names: its real file, `exec -a`, a hard link.
        let (byRealName, _) = try spawn(program("import time; time.sleep(600)", ignoresTerm: false, as: real), as: users.realName)
        let (renamed, _) = try spawn("exec -a othername \(real) -c 'import time; time.sleep(600)'", as: users.execA, shell: "/bin/bash")
        let link = try hardLink()
        defer { if let link { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: link).deletingLastPathComponent().path) } }
        let linked = try link.map { try spawn(program("import time; time.sleep(600)", ignoresTerm: false, as: $0), as: users.hardLink).0 }
        // Each link forks the next and exits, all ignoring TERM.
        let (_, chain) = try spawn(program("import os, time\nprint(os.getpid(), flush=True)\nwhile True:\n    os.fork() and os._exit(0)\n    time.sleep(0.2)"),
                                   as: users.chain, reads: true)
        let started = Date()
        // A child forked before its parent became python (a shell's job).
        let (_, job) = try spawn("/bin/sleep 600 & echo $!; trap '' TERM; exec \(python) -c 'import time; time.sleep(600)'",
                                 as: users.before, reads: true)

        #expect(forked.count == 2 && eventually(within: seconds) { forked.allSatisfy(gone) },
                "a fork of python that ignores SIGTERM ends with its parent (\(forked))")
        #expect(tree.count == 2 && eventually(within: seconds) { tree.allSatisfy(gone) }, "python's child running sleep ends too (\(tree))")
        #expect(eventually(within: seconds) { gone(byRealName.processIdentifier) }, "\(real) is python3")
        #expect(eventually(within: seconds) { gone(renamed.processIdentifier) }, "exec -a othername \(real) is python3")
        if let linked {
            #expect(eventually(within: seconds) { gone(linked.processIdentifier) }, "a hard link \(link ?? "") to python is python3")
        } else {
            Issue.record("no hard link to \(real) could be made on its file system")
        }
        // A reading of /proc can fall between a link's exit and the next's
        // fork: none for a whole link's life (0.2 s) and more.
        #expect(chain.count == 1 && eventually(within: seconds) { (0..<6).allSatisfy { _ in
            Thread.sleep(forTimeInterval: 0.05)
            return running(real, uid: users.chain).isEmpty
        } },
                "no link of the chain started as \(chain) is left (\(Date().timeIntervalSince(started)) s)")

        #expect(job.count == 1 && eventually(within: seconds) { job.allSatisfy(gone) }, "a job the shell forked before it became python ends too")

        #expect(!gone(others.processIdentifier), "another user's python runs on")
        #expect(!gone(sleeper.processIdentifier), "the user's other programs run on")
    }

    @Test("on the kernel's process events: python by its real name, a hard link or exec -a, its fork, its child, a fork chain and a job forked before it all end")
    func events() throws {
        let system = try SystemServiceHarness()
        let service = try system.start(layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let users = Users(base: 65_500)
        let status = try system.client(uid: users.fork).run("system", "status")
        guard status.out.contains("kernel process events") else {
            Issue.record("the app layer runs on process events here: \(status.out)")
            return
        }
        try Self.block(users) { system.client(uid: $0) }
        try Self.attempts(users, within: AppLayerGrace.seconds + 3)
        #expect(try system.client(uid: users.fork).run("status").status == 0, "retime itself still runs for the user")

        // `shield test` tells python by its real name as python3, as the
        // layer does: a user who does not block it sees it running.
        defer { Self.cleanUp([users.other]) }
        let (unblocked, _) = try Self.spawn("exec \(Self.real) -c 'import time; time.sleep(600)'", as: users.other)
        #expect(eventually(within: 10) { Self.running(Self.real, uid: users.other).contains(unblocked.processIdentifier) })
        let tested = try system.client(uid: users.other).run("shield", "test", "app:python3")
        #expect(tested.out.contains("running as pid \(unblocked.processIdentifier)"), "\(tested.out)")
    }

    @Test("reading /proc (no process events): python by its real name, a hard link or exec -a, its fork, its child, a fork chain and a job forked before it all end")
    func polling() throws {
        guard NetworkSandbox.available else { return }
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let system = try SystemServiceHarness()
        let service = try system.start(launcher: sandbox.launcher, hostsFile: "/etc/hosts", layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let users = Users(base: 65_510)
        #expect(try FirewallLayerEndToEndTests.user(system, in: sandbox, uid: users.fork).run("system", "status").out
            .contains("/proc is read every 2 s"))
        try Self.block(users) { FirewallLayerEndToEndTests.user(system, in: sandbox, uid: $0) }
        try Self.attempts(users, within: AppLayerGrace.seconds + 2 + 3)
    }

    @Test("a blocked app that forks more children than the service keeps descriptors for, all ignoring TERM: every one ends")
    func forkBomb() throws {
        let system = try SystemServiceHarness()
        // 300 descriptors: the service's own and fewer pidfds than children.
        let service = try system.start(launcher: ["/usr/bin/prlimit", "--nofile=300:300", "--"], layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let uid: UInt32 = 65_530
        defer { Self.cleanUp([uid]) }
        let user = system.client(uid: uid)
        guard try user.run("system", "status").out.contains("kernel process events") else { return }
        #expect(try user.run("group", "create", "snakes", "--block", "app:python3").status == 0)
        #expect(try user.run("start", "snakes", "--for", "30m").status == 0)
        let (_, forked) = try Self.spawn(Self.program("import os, time\nprint(os.getpid(), flush=True)\nfor _ in range(400):\n"
                                                      + "    os.fork() or (time.sleep(600), os._exit(0))\ntime.sleep(600)"), as: uid, reads: true)
        #expect(forked.count == 1, "python started")
        #expect(eventually(within: AppLayerGrace.seconds + 3) { (0..<4).allSatisfy { _ in
            Thread.sleep(forTimeInterval: 0.05)
            return Self.running(Self.real, uid: uid).isEmpty
        } }, "left: \(Self.running(Self.real, uid: uid).count)")
    }
}
