import Foundation
import Testing

/// Suspended time, for real: a time namespace moves `CLOCK_BOOTTIME` and
/// not `CLOCK_MONOTONIC`, which is what a suspend does, so a command run
/// in one with the boot clock an hour ahead sees an hour of sleep since a
/// `start` made outside it; faketime moves the wall clock (and leaves the
/// other clocks alone) so the session's two hours take seconds.
@Suite("Away time end to end")
struct AwayEndToEndTests {
    let retime = RetimeProcess()

    /// Whether this machine lets an unprivileged user namespace have a time
    /// namespace of its own, and faketime reaches the binary.
    static let canSuspendInNamespace: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), FileManager.default.fileExists(atPath: "/usr/bin/faketime"),
              RetimeProcess.isDynamicallyLinked else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "--time", "--boottime", "3600", "/bin/true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// retime run after `wallClock` has passed, the machine having slept `slept` seconds of it.
    func later(_ wallClock: String, slept: Int) -> RetimeProcess {
        var later = retime
        later.launcher = ["/usr/bin/unshare", "--user", "--map-root-user", "--time", "--boottime", String(slept),
                          "/usr/bin/faketime", "-f", wallClock]
        later.environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        return later
    }

    @Test("a suspend of 1 h during a 2 h session records 1 h focused; status says so midway; keep-away has nothing to keep",
          .enabled(if: canSuspendInNamespace, "needs time namespaces, faketime and a dynamically linked binary"))
    func suspendDuringSession() throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work", "--for", "2h").status == 0)

        let midway = try later("+90m", slept: 3_600).run("status", "--json").json
        let running = try #require(midway["session"] as? [String: Any], "\(midway)")
        #expect(abs((running["asleepSeconds"] as? Double ?? 0) - 3_600) < 5, "\(running)")
        #expect(abs((running["focusedSeconds"] as? Double ?? 0) - 1_800) < 5, "\(running)")
        #expect(try later("+90m", slept: 3_600).run("status").out.contains("suspended 1h"))

        let keep = try later("+90m", slept: 3_600).run("keep-away", "--json")
        #expect(keep.status == 1 && keep.errorCode == "away.none", "sleep is never kept as focused")

        // Past its end, any command completes it (at its planned end), as the clocks tell it.
        #expect(try later("+2h", slept: 3_600).run("status", "--json").json["active"] as? Bool == false)
        let ended = try #require((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first)
        #expect(ended["outcome"] as? String == "completed")
        #expect(abs((ended["focusedSeconds"] as? Double ?? 0) - 3_600) < 1, "\(ended)")
        #expect(abs((ended["awaySeconds"] as? Double ?? 0) - 3_600) < 1, "\(ended)")
        let report = try retime.run("report", "--json").json
        #expect(abs((report["totalFocusedSeconds"] as? Double ?? 0) - 3_600) < 1, "\(report)")
    }

    @Test("without a suspend the same session is two hours focused",
          .enabled(if: canSuspendInNamespace, "needs time namespaces, faketime and a dynamically linked binary"))
    func noSuspend() throws {
        try retime.run("group", "create", "work")
        try retime.run("start", "work", "--for", "2h")
        #expect(try later("+2h", slept: 0).run("status", "--json").json["active"] as? Bool == false)
        let ended = try #require((try retime.run("log", "--json").json["sessions"] as? [[String: Any]])?.first)
        #expect(abs((ended["focusedSeconds"] as? Double ?? 0) - 7_200) < 1, "\(ended)")
    }
}
