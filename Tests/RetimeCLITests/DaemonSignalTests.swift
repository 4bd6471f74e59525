#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Signals reach the daemon however the kernel delivers them: a daemon
/// started with TERM, INT and HUP blocked in every thread (as a runner's
/// children can be; the test runner's are) still reloads on HUP and stops on
/// TERM. Before the signal watcher read a signalfd too, such a daemon
/// ignored both for ever.
@Suite("The daemon's signals, with the signals blocked", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct DaemonSignalTests {
    /// Blocks the three signals, then becomes retime: the mask survives exec.
    static let blockingLauncher = ["/usr/bin/python3", "-c",
                                   "import os, signal, sys\n"
                                       + "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])\n"
                                       + "os.execv(sys.argv[1], sys.argv[1:])"]

    /// The signals the process's main thread blocks, from /proc.
    static func blockedMask(_ pid: Int32) -> UInt64? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        return line.flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    @Test("started with TERM and HUP blocked, the daemon reloads on HUP and stops on TERM promptly, exit 0")
    func blockedSignals() throws {
        var retime = RetimeProcess()
        retime.launcher = Self.blockingLauncher
        let daemon = try DaemonEndToEndTests().startDaemon(retime)
        let pid = daemon.process.processIdentifier
        let mask = try #require(Self.blockedMask(pid))
        #expect(mask & (1 << UInt64(SIGTERM - 1)) != 0 && mask & (1 << UInt64(SIGHUP - 1)) != 0, "the launcher blocked them")

        kill(pid, SIGHUP)
        let log = try retime.deviceFile("logs/daemon.log")
        #expect(try eventually(within: 10) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("reloading the configuration")
        }, "HUP reached the daemon")
        #expect(daemon.process.isRunning)

        let sent = Date()
        kill(pid, SIGTERM)
        let ended = try eventually(within: 10) { !daemon.process.isRunning }
        if !ended { kill(pid, SIGKILL) }
        daemon.process.waitUntilExit()
        #expect(ended && Date().timeIntervalSince(sent) < promptly, "TERM ended it in \(Date().timeIntervalSince(sent)) s")
        #expect(daemon.process.terminationReason == .exit && daemon.process.terminationStatus == 0)
    }
}
