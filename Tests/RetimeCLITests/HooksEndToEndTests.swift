import Domain
import Foundation
import Testing

/// Hooks and desktop notifications, through the built binary.
@Suite("hooks and notifications end to end")
struct HooksEndToEndTests {
    let retime = RetimeProcess()

    /// Installs `hooks/NAME` (and, for `notify-send`, a fake one in `bin/`).
    static func install(_ path: String, _ body: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// Every hook of a session's life writes its environment (NUL-separated) to `NAME.env`.
    static let recorder = #"env -0 > "$0.tmp" && mv "$0.tmp" "$0.env""#

    static func environment(_ path: String) -> [String: String]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Dictionary(text.split(separator: "\0").compactMap { entry in
            entry.firstIndex(of: "=").map { (String(entry[..<$0]), String(entry[entry.index(after: $0)...])) }
        }) { first, _ in first }
    }

    static func eventually<T>(within seconds: Double, _ probe: () -> T?) -> T? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = probe() { return value }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return probe()
    }

    @Test("doctor warns of a hooks directory others may write (its hooks do not run), and --repair takes that access away")
    func hooksDirectoryOpenToOthers() throws {
        try Self.install(retime.file("hooks/session-started"), "touch \"$0.ran\"")
        #expect(chmod(retime.file("hooks"), 0o777) == 0)
        func hooksCheck(_ arguments: String...) throws -> [String: String]? {
            (try retime.run(arguments + ["--json"]).json["checks"] as? [[String: String]])?.first { $0["name"] == "hooks" }
        }
        let found = try hooksCheck("doctor")
        #expect(found?["status"] == "warning" && (found?["detail"] ?? "").contains("writable by others"), "\(found ?? [:])")
        #expect(try hooksCheck("doctor", "--repair")?["status"] == "repaired")
        var info = stat()
        #expect(stat(retime.file("hooks"), &info) == 0 && info.st_mode & 0o022 == 0)
        #expect(try hooksCheck("doctor")?["status"] == "ok")
    }

    @Test("each session event runs its hook with the spec's environment")
    func sessionHooks() throws {
        for event in ["session-started", "session-paused", "session-resumed", "session-ended"] {
            try Self.install(retime.file("hooks/" + event), Self.recorder)
        }
        try retime.run("group", "create", "work", "--block", "slack.com", "--block", "news.example.org")
        let session = try #require(try retime.run("start", "work", "--for", "25m", "--json").json["session"] as? [String: Any])
        try retime.run("pause")
        try retime.run("resume")
        try retime.run("stop")
        for event in ["session-started", "session-paused", "session-resumed", "session-ended"] {
            let env = try #require(Self.eventually(within: 10) { Self.environment(retime.file("hooks/\(event).env")) }, "\(event) ran")
            #expect(env["RETIME_EVENT"] == event)
            #expect(env["RETIME_SESSION_ID"] == session["id"] as? String)
            #expect(env["RETIME_GROUP"] == "work")
            #expect(env["RETIME_TARGETS"] == "slack.com\nnews.example.org")
            // The JSON document shows milliseconds, the hook gets the instant exactly.
            let plannedEnd = try #require((session["plannedEnd"] as? String).flatMap(Timestamp.parse))
            #expect(abs(try #require(env["RETIME_PLANNED_END"].flatMap(Timestamp.parse)).timeIntervalSince(plannedEnd)) < 0.001)
            #expect(env["RETIME_AT"].flatMap(Timestamp.parse) != nil)
            #expect(env["RETIME_ORIGIN"] == "manual")
            #expect(env["HOME"] != nil, "the user's own environment is kept")
        }
        #expect(Self.environment(retime.file("hooks/session-ended.env"))?["RETIME_OUTCOME"] == "stopped")
    }

    @Test("a hook that sleeps 60 s is killed after 5 s; the command returns at once and the session goes on")
    func slowHook() throws {
        try Self.install(retime.file("hooks/session-started"), #"echo $$ > "$0.pid"; exec sleep 60"#)
        let began = Date()
        let start = try retime.run("start", "--for", "25m")
        #expect(start.status == 0)
        #expect(Date().timeIntervalSince(began) < 3, "start did not wait for the hook")
        let pid = try #require(Self.eventually(within: 5) {
            (try? String(contentsOfFile: retime.file("hooks/session-started.pid"), encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        })
        #expect(kill(pid, 0) == 0, "the hook is running")
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true)
        let gone = Self.eventually(within: 15) { kill(pid, 0) != 0 ? Date() : nil }
        let lasted = try #require(gone).timeIntervalSince(began)
        #expect(lasted > 4.5 && lasted < 10, "killed after \(lasted) s")
        let log = try String(contentsOfFile: retime.deviceFile("logs/hooks.log"), encoding: .utf8)
        #expect(log.contains("event=session-started was killed after 5 s"))
        #expect(try retime.run("status", "--json").json["active"] as? Bool == true, "the session goes on")
    }

    @Test("doctor warns of a hook that would never run: a misspelt name, or a file others can write")
    func doctorHooks() throws {
        try Self.install(retime.file("hooks/session-start"), "true")
        try Self.install(retime.file("hooks/session-ended"), "true")
        try Self.install(retime.file("hooks/session-paused"), "true")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: retime.file("hooks/session-ended"))
        let doctor = try retime.run("doctor", "--json")
        #expect(doctor.status == 0, "warnings are not errors")
        let hooks = try #require((doctor.json["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "hooks" })
        #expect(hooks["status"] as? String == "warning")
        let detail = hooks["detail"] as? String ?? ""
        #expect(detail.contains("session-start is not an event") && detail.contains("session-ended: it is writable by others"))
        #expect(!detail.contains("session-paused:"), "a good hook is not a problem")
    }

    @Test("notifications are on by default where there is a session bus; without one, or with notify off, none")
    func notifications() throws {
        var retime = retime
        let bin = retime.file("bin")
        try Self.install(bin + "/notify-send", #"printf '%s\n' "$@" > "$0.$$.tmp" && mv "$0.$$.tmp" "$0.$$.args""#)
        retime.environment["PATH"] = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        func shown() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: bin)) ?? []).filter { $0.hasSuffix(".args") }
        }
        try retime.run("start", "--for", "25m")
        try retime.run("stop")
        try retime.run("config", "set", "notify", "off")
        retime.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + retime.file("bus")
        try retime.run("start", "--for", "25m")
        try retime.run("stop")
        Thread.sleep(forTimeInterval: 0.5) // nothing should appear; a notifier would have run by now
        #expect(shown().isEmpty, "no session bus (a server): none; notify off: none")
        try retime.run("config", "unset", "notify")
        try retime.run("start", "--for", "25m")
        #expect(shown().isEmpty, "a start is not notified")
        try retime.run("stop")
        let file = try #require(Self.eventually(within: 10) { shown().first })
        let arguments = try String(contentsOfFile: bin + "/" + file, encoding: .utf8).split(separator: "\n")
        #expect(arguments.first == "--app-name=retime")
        #expect(arguments.dropFirst().first == "Focus session ended")
        #expect(arguments.last?.contains("focus") == true)
    }
}
