import Foundation
import PortContracts
import Testing

/// The daemon, as the real binary, follows the compositor's idle time on a
/// sway started headless by the test (never the machine's display), with no
/// logind to reach: `doctor` names the source, and half a minute without
/// input, then a key, is one idle stretch in the running session, from the
/// last key to the return. Half a minute is the shortest `away.threshold`
/// and the daemon's notification timeout; nothing shorter can be away.
@Suite("The daemon records away time from the Wayland compositor", .serialized, .enabled(if: HeadlessCompositor.required(.sway)))
struct WaylandAwayEndToEndTests {
    @Test("sway says idle after 30 s without input and present at a key: the session records the stretch from the last key")
    func awayFromTheCompositor() throws {
        let compositor = try HeadlessCompositor(.sway)
        defer { compositor.stop() }
        let retime = try Self.retime(compositor.environment)
        let away = try #require(try retime.doctorFinding("away time")?["detail"] as? String)
        #expect(away.hasPrefix("followed through the compositor's kwin idle (org_kde_kwin_idle) on \(compositor.runtimeDirectory.path)"),
                "\(away)")
        try Self.underDaemon(retime) { try awayStretch(compositor, retime) }
    }

    @Test("a daemon started with the login, before the desktop (no WAYLAND_DISPLAY): the compositor that starts later in XDG_RUNTIME_DIR is followed")
    func compositorAfterTheDaemon() throws {
        let folder = try HeadlessCompositor.runtimeFolder()
        let retime = try Self.retime(["XDG_RUNTIME_DIR": folder.path])
        let away = try #require(try retime.doctorFinding("away time")?["detail"] as? String)
        #expect(away.contains("the compositor's idle time once a compositor starts at \(folder.path)/wayland-N (none answers yet)"), "\(away)")
        try Self.underDaemon(retime) {
            let compositor = try HeadlessCompositor(.sway, in: folder)
            defer { compositor.stop() }
            try awayStretch(compositor, retime)
        }
    }

    /// A retime of the test's own with `environment` added, whose shortest
    /// away is half a minute.
    static func retime(_ environment: [String: String]) throws -> RetimeProcess {
        var retime = RetimeProcess()
        retime.environment.merge(environment) { $1 }
        #expect(try retime.run("config", "set", "away.threshold", "30s").status == 0)
        return retime
    }

    /// Runs `body` with a 2-hour session running and the daemon started; stops the daemon after.
    static func underDaemon(_ retime: RetimeProcess, _ body: () throws -> Void) throws {
        try retime.run("group", "create", "work")
        #expect(try retime.run("start", "work", "--for", "2h").status == 0)
        let daemon = try retime.startDaemon()
        defer {
            kill(daemon.process.processIdentifier, SIGTERM)
            daemon.process.waitUntilExit()
        }
        try body()
    }

    /// Half a minute without input on `compositor`, then a key: one closed
    /// idle stretch in `retime`'s running session, from the last key to the
    /// return (its daemon follows the compositor).
    func awayStretch(_ compositor: HeadlessCompositor, _ retime: RetimeProcess) throws {
        // The daemon connects as it starts; its notification counts from
        // its request or the last input, whichever is later: a key after
        // `daemon status` answered is the last input.
        // The key lands while `press` runs: the idle can come no sooner than
        // 30 s after the instant before it.
        let lastKey = Date()
        try compositor.press()
        func session() throws -> [String: Any] { try retime.run("status", "--json").json["session"] as? [String: Any] ?? [:] }
        // Idle heard (at 30 s) and past the threshold: counted as away while it lasts.
        #expect(try eventually(within: 120) { (try session()["awaySeconds"] as? Double ?? 0) > 0 }, "\((try? session()) ?? [:]) \(compositor.output)")
        let heard = Date()
        #expect(heard.timeIntervalSince(lastKey) >= 30, "not idle before 30 s without input")
        try compositor.press()
        let back = Date()
        // The stretch, open since the idle, closed by the return.
        #expect(try eventually(within: 60) { (try session()["away"] as? [[String: Any]])?.first?["end"] is String }, "\((try? session()) ?? [:])")
        #expect((try session()["away"] as? [[String: Any]])?.count == 1, "one stretch: \((try? session()) ?? [:])")
        let stretch = try #require((try session()["away"] as? [[String: Any]])?.first)
        #expect(stretch["reason"] as? String == "idle" && stretch["kept"] as? Bool == false, "\(stretch)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parse = { (text: Any?) in (text as? String).flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) } }
        let start = try #require(parse(stretch["start"]), "\(stretch)")
        let end = try #require(parse(stretch["end"]), "\(stretch)")
        // From the last key (or the daemon's request, had it come later),
        // 30 s before the compositor said idle; to the return.
        #expect(start >= lastKey.addingTimeInterval(-1) && start <= heard.addingTimeInterval(-29), "started \(start), last key \(lastKey), heard \(heard)")
        #expect(end >= start.addingTimeInterval(30) && end <= Date() && abs(end.timeIntervalSince(back)) < 5, "ended \(end), key \(back)")
        #expect(try retime.run("status").status == 0, "the session runs on")
    }

    static let libwayland = DesktopWithoutBusTests.loaderPaths("libwayland-client.so.0")

    @Test("with libwayland-client.so.0 hidden, doctor says why the compositor is not followed, and the daemon runs as before",
          .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && !libwayland.isEmpty))
    func withoutLibwayland() throws {
        let compositor = try HeadlessCompositor(.sway)
        defer { compositor.stop() }
        // A compositor is there; only the library to speak to it is not.
        var retime = DesktopWithoutBusTests.hidden(Self.libwayland)
        retime.environment.merge(compositor.environment) { $1 }
        try retime.run("group", "create", "focus")
        let away = try #require(try retime.doctorFinding("away time")?["detail"] as? String)
        #expect(away.hasPrefix("idle and lock are not followed: "), "no logind here either: \(away)")
        #expect(away.contains("the compositor's idle time is not followed: libwayland-client cannot be opened ("), "\(away)")
        let daemon = try retime.startDaemon()
        #expect(try retime.run("start", "focus", "--for", "2s").status == 0)
        #expect(eventually(within: 2 + 10) { (try? retime.loggedSessions().count) == 1 }, "the daemon completed the session")
        kill(daemon.process.processIdentifier, SIGTERM)
        #expect(try retime.finish(daemon).status == 0)
    }
}
