#if os(Linux)
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PortContracts
import Testing

/// The desktop's D-Bus parts are extras: a machine without libsystemd, and
/// a session bus that goes away under the daemon, leave the rest of retime
/// as it was (issue 33, "nothing else changes when no session bus exists").
@Suite("without libsystemd, and when the session bus goes away", .serialized, .enabled(if: PrivateBus.installed))
struct DesktopWithoutBusTests {
    /// Where libsystemd.so.0 really is (the loader's cache, links resolved), if installed.
    static let libsystemd = loaderPaths("libsystemd.so.0")

    /// Where the loader's cache says `soname` is, links resolved.
    static func loaderPaths(_ soname: String) -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/sbin/ldconfig")
        process.arguments = ["-p"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let paths = text.split(separator: "\n").filter { $0.contains(soname + " ") }.compactMap { $0.components(separatedBy: " => ").last }
        return Array(Set(paths.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }))
    }

    /// Root, `unshare` and a libsystemd to hide.
    static var canHide: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && !libsystemd.isEmpty
    }

    /// retime in a mount namespace of its own where every libsystemd.so.0
    /// is an empty file (`/dev/null` bound over it): `dlopen` fails as on a
    /// machine without it. The host's mounts are untouched (the namespace's
    /// propagation is private, unshare's default).
    static func hidden(_ libraries: [String] = libsystemd) -> RetimeProcess {
        var retime = RetimeProcess()
        let binds = libraries.map { "mount --bind /dev/null '\($0)'" }.joined(separator: " && ")
        retime.launcher = ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", binds + " && exec \"$@\"", "sh"]
        return retime
    }

    func finding(_ retime: RetimeProcess, _ name: String) throws -> String {
        try retime.doctorFinding(name)?["detail"] as? String ?? "(no finding \(name))"
    }

    func log(_ retime: RetimeProcess) -> String {
        (try? String(contentsOfFile: retime.deviceFile("logs/daemon.log"), encoding: .utf8)) ?? ""
    }

    @Test("with libsystemd.so.0 hidden, doctor says why there is no D-Bus and no logind, and status and the daemon run as before",
          .enabled(if: canHide))
    func withoutLibsystemd() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        // A session bus is there; only the library to speak to it is not.
        let retime = Self.hidden().onSessionBus(bus.address)
        try retime.run("group", "create", "focus")
        let session = try finding(retime, "session bus")
        #expect(session.contains("libsystemd cannot be opened"), "\(session)")
        let away = try finding(retime, "away time")
        #expect(away.hasPrefix("idle and lock are not followed: libsystemd cannot be opened"), "\(away)")
        #expect(away.contains("suspended time is left out"), "the clocks still tell sleep: \(away)")

        let daemon = try retime.startDaemon()
        #expect(daemon.process.isRunning, "the daemon runs without libsystemd")
        #expect(try retime.run("start", "focus", "--for", "2s").status == 0)
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        #expect(eventually(within: 2 + 10) { (try? retime.loggedSessions().count) == 1 }, "the daemon completed the session")
        kill(daemon.process.processIdentifier, SIGTERM)
        let outcome = try retime.finish(daemon)
        #expect(outcome.status == 0, "\(outcome.err)")
        let said = log(retime)
        #expect(said.components(separatedBy: "libsystemd cannot be opened").count - 1 >= 1, "the log says why: \(said)")
        #expect(said.components(separatedBy: "cannot own dev.retime.Retime1").count == 2, "once: \(said)")
    }

    @Test("the session bus killed under the daemon: it runs on, says so once, and sessions end on time")
    func busLost() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let retime = RetimeProcess().onSessionBus(bus.address)
        try retime.run("group", "create", "focus")
        let daemon = try retime.startDaemon()
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        #expect(eventually(within: 15) { log(retime).contains("owns dev.retime.Retime1") }, "\(log(retime))")
        #expect(try retime.run("start", "focus", "--for", "2s").status == 0)
        let started = Date()
        bus.stop()
        #expect(eventually(within: 2 + promptly) { (try? retime.loggedSessions().count) == 1 }, "the session ended on time")
        #expect(Date().timeIntervalSince(started) >= 1.5, "not before its end")
        // And the next, with changes of state the bus would have carried.
        #expect(try retime.run("start", "focus", "--for", "1s").status == 0)
        #expect(try retime.run("pause").status == 0)
        #expect(try retime.run("resume").status == 0)
        #expect(eventually(within: 1 + promptly) { (try? retime.loggedSessions().count) == 2 }, "the next ended on time too")
        #expect(daemon.process.isRunning, "the daemon runs on")
        let said = log(retime)
        #expect(said.components(separatedBy: "lost the session bus").count == 2, "said once: \(said)")
        kill(daemon.process.processIdentifier, SIGTERM)
        let outcome = try retime.finish(daemon)
        #expect(outcome.status == 0, "stopped cleanly: \(outcome.err)")
    }
}
#endif
