#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The app layer's grace between SIGTERM and SIGKILL (AppLayer.grace).
enum AppLayerGrace { static let seconds: TimeInterval = 2 }

/// The app layer for real (semantics.md, "Layers"): a blocking user's
/// processes by a blocked app's name are terminated when the block is
/// raised and as they start; nobody else's, and never retime itself.
@Suite("The app layer end to end", .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
struct AppLayerEndToEndTests {
    /// A copy of `sleep` under a name of the test's own, runnable by anyone.
    static func app() throws -> (path: String, name: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-apps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let name = "rtapp" + String(UUID().uuidString.prefix(6)).lowercased()
        let path = directory + "/" + name
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: path)
        chmod(path, 0o755)
        return (path, name)
    }

    /// Runs the app as `uid`, with no signal blocked and TERM at its default
    /// (a child of the test runner inherits the signals its thread blocks,
    /// and those it ignores while an in-process test holds a signal pipe),
    /// and returns once it runs under the app's name or has ended (killed
    /// at its exec): setpriv and python take their time on a busy machine,
    /// and that time is not the service's.
    static func run(_ path: String, as uid: UInt32) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", NetworkSandbox.python, "-c",
                             "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); signal.signal(signal.SIGTERM, signal.SIG_DFL); "
                             + "os.execv(sys.argv[1], sys.argv[1:])",
                             path, "60"]
        try process.run()
        let name = String(path.split(separator: "/").last ?? "").prefix(15)
        _ = eventually(within: 20) {
            ended(process) || (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8))?.hasPrefix(name) == true
        }
        return process
    }

    /// Whether the process has ended, as /proc says (a zombie not yet reaped
    /// counts): Foundation hears of it later on a busy machine. Once true,
    /// the process is reaped, so its status may be read.
    static func ended(_ process: Process) -> Bool {
        let pid = process.processIdentifier
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "Z", state != "X" {
            return false
        }
        process.waitUntilExit()
        return true
    }

    @Test("terminated at the raise and promptly at each start; another user's and retime itself untouched")
    func terminates() throws {
        let (path, name) = try Self.app()
        let system = try SystemServiceHarness()
        let service = try system.start(layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let user = system.client(), other = system.client(uid: 65_533)
        let status = try user.run("system", "status")
        guard status.out.contains("kernel process events") else {
            Issue.record("the app layer runs on process events here: \(status.out)")
            return
        }
        let before = try Self.run(path, as: 65_534), othersBefore = try Self.run(path, as: 65_533)
        var running = [before, othersBefore]
        defer { running.filter { !Self.ended($0) }.forEach { kill($0.processIdentifier, SIGKILL) } }

        // `app:retime` too: the user's own retime must still run.
        #expect(try user.run("group", "create", "games", "--block", "app:\(name)", "--block", "app:retime").status == 0)
        let start = try user.run("start", "games", "--for", "30m")
        #expect(start.status == 0 && start.prose.contains("Blocking 2 targets."), "\(start.out) \(start.err)")
        #expect(eventually(within: promptly) { Self.ended(before) }, "the user's running app was terminated when the block was raised")
        #expect(!Self.ended(othersBefore), "another user's is not")
        guard Self.ended(before) else { return }
        #expect(before.terminationReason == .uncaughtSignal && before.terminationStatus == SIGTERM)

        let started = Date()
        let during = try Self.run(path, as: 65_534)
        running.append(during)
        #expect(eventually(within: promptly) { Self.ended(during) }, "an app started during the block is ended")
        let took = Date().timeIntervalSince(started)
        let othersDuring = try Self.run(path, as: 65_533), after = try Self.run(path, as: 65_534)
        running += [othersDuring, after]
        #expect(eventually(within: promptly) { Self.ended(after) })
        #expect(!Self.ended(othersDuring), "another user's app started before it is untouched (took \(took) s)")
        #expect(try user.run("status").status == 0, "retime itself is never terminated")
        let tested = try user.run("shield", "test", "app:\(name)", "--json")
        let check = try #require((tested.json["targets"] as? [[String: Any]])?.first, "\(tested.out) \(tested.err)")
        let rows = Dictionary(uniqueKeysWithValues: (check["layers"] as? [[String: Any]] ?? []).map { ($0["layer"] as? String ?? "", $0) })
        #expect(check["blocked"] as? Bool == true && rows["apps"]?["blocked"] as? Bool == true && rows["running"]?["blocked"] as? Bool == true,
                "\(tested.out)")

        // Lowered: the user's app runs again; then the other user's block
        // takes the other user's, and leaves this one's.
        #expect(try user.run("stop").status == 0)
        let free = try Self.run(path, as: 65_534)
        running.append(free)
        // Named so once setpriv and python have exec'd it.
        #expect(eventually(within: 2) {
            (try? String(contentsOfFile: "/proc/\(free.processIdentifier)/comm", encoding: .utf8))?.hasPrefix(name) == true
        })
        let open = try user.run("shield", "test", "app:\(name)")
        #expect(open.out.contains("app:\(name)  NOT blocked") && open.out.contains("running  LEAK    running as pid \(free.processIdentifier)"),
                "\(open.out)")
        #expect(try other.run("group", "create", "games", "--block", "app:\(name)").status == 0)
        #expect(try other.run("start", "games").status == 0)
        #expect(eventually(within: promptly) { Self.ended(othersBefore) && Self.ended(othersDuring) })
        #expect(!Self.ended(free), "a user's app runs once its block is lowered")
        #expect(try other.run("stop").status == 0)
    }

    @Test("a process that takes a blocked name (prctl) is found; one that ignores SIGTERM is killed after the grace")
    func renamedAndStubborn() throws {
        let (_, name) = try Self.app()
        let system = try SystemServiceHarness()
        let service = try system.start(layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let user = system.client()
        #expect(try user.run("group", "create", "games", "--block", "app:\(name)").status == 0)
        #expect(try user.run("start", "games").status == 0)
        // Starts as python, ignores TERM, then renames itself: a `comm` event.
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        app.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", NetworkSandbox.python, "-c", """
            import ctypes, signal, sys, time
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
            print("renamed", flush=True)
            time.sleep(60)
            """, name]
        let out = Pipe()
        app.standardOutput = out
        try app.run()
        defer { if !Self.ended(app) { kill(app.processIdentifier, SIGKILL) } }
        #expect(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("renamed"))
        let renamed = Date()
        #expect(eventually(within: 5) { Self.ended(app) })
        guard Self.ended(app) else { return }
        #expect(app.terminationReason == .uncaughtSignal && app.terminationStatus == SIGKILL, "TERM was ignored; KILL ended it")
        #expect(Date().timeIntervalSince(renamed) >= AppLayerGrace.seconds - 0.1, "KILL comes after the grace")
    }

    @Test("where process events do not reach the service, /proc is read every 2 s, and system status says so")
    func polling() throws {
        guard NetworkSandbox.available else { return }
        let sandbox = try NetworkSandbox()
        defer { sandbox.stop() }
        let (path, name) = try Self.app()
        let system = try SystemServiceHarness()
        let service = try system.start(launcher: sandbox.launcher, hostsFile: "/etc/hosts", layers: ["--firewall", "off", "--apps", "on", "--names", "hosts"])
        defer { system.stop(service) }
        let user = FirewallLayerEndToEndTests.user(system, in: sandbox)
        let status = try user.run("system", "status")
        #expect(status.out.contains("/proc is read every 2 s"), "\(status.out)")
        #expect(try user.run("group", "create", "games", "--block", "app:\(name)").status == 0)
        #expect(try user.run("start", "games").status == 0)
        let app = try Self.run(path, as: 65_534)
        defer { if !Self.ended(app) { kill(app.processIdentifier, SIGKILL) } }
        #expect(eventually(within: 3) { Self.ended(app) }, "found by the next reading of /proc")
    }
}
