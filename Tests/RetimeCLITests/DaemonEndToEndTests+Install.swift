@testable import RetimeCLI
import Domain
import Foundation
import Testing

/// Installing the daemon as a login service (systemd, launchd).
extension DaemonEndToEndTests {
    @Test("install --print writes a systemd user unit naming this binary")
    func installPrint() throws {
        let retime = RetimeProcess()
        let unit = try retime.run("daemon", "install", "--print").out
        #expect(unit.contains("ExecStart=/") && unit.contains(" daemon run") && unit.contains("Restart=on-failure"))
        #expect(unit.contains("--data-dir \(retime.dataDirectory)"))
    }

    @Test("systemd: uninstall removes the unit and the link that starts it at login, which an older systemctl cannot once the unit is gone")
    func systemdUninstall() throws {
        let retime = RetimeProcess()
        #expect(try retime.run("daemon", "install", "--manager", "systemd").status == 0)
        let unit = retime.dataDirectory + "-home/.config/systemd/user/retime.service"
        #expect(FileManager.default.fileExists(atPath: unit))
        // What `systemctl --user enable retime` makes.
        let wants = retime.dataDirectory + "-home/.config/systemd/user/default.target.wants"
        try FileManager.default.createDirectory(atPath: wants, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: wants + "/retime.service", withDestinationPath: unit)
        let removed = try retime.run("daemon", "uninstall", "--manager", "systemd")
        #expect(removed.status == 0 && removed.out.contains("start at login"), "\(removed.out)")
        #expect(!FileManager.default.fileExists(atPath: unit))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: wants + "/retime.service")) == nil, "no link left")
        #expect(try retime.run("daemon", "uninstall", "--manager", "systemd").out.contains("nothing to remove"))
    }

    @Test("a data directory with spaces and % is quoted in the unit as systemd reads it")
    func unitQuoting() throws {
        let unit = try RetimeProcess().run(["--data-dir", "/tmp/my focus 100%", "daemon", "install", "--print", "--manager", "systemd"],
                                           withDataDir: false).out
        #expect(unit.contains(#"--data-dir "/tmp/my focus 100%%" daemon run"#))
    }

    @Test("launchd: a user agent that runs this binary's daemon at login and again after a failure")
    func launchdAgent() throws {
        let retime = RetimeProcess()
        let printed = try retime.run("daemon", "install", "--print", "--manager", "launchd", "--json").json
        let text = try #require(printed["unit"] as? String)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: Any])
        #expect(plist["Label"] as? String == "net.retime.daemon")
        let arguments = try #require(plist["ProgramArguments"] as? [String])
        #expect(arguments.first?.hasPrefix("/") == true && arguments.dropFirst() == ["--data-dir", retime.dataDirectory, "daemon", "run"])
        #expect(plist["RunAtLoad"] as? Bool == true)
        #expect((plist["KeepAlive"] as? [String: Any])?["SuccessfulExit"] as? Bool == false)
        let path = try #require(printed["path"] as? String)
        #expect(path == retime.dataDirectory + "-home/Library/LaunchAgents/net.retime.daemon.plist")
        #expect(try retime.run("daemon", "install", "--manager", "launchd").status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try retime.run("daemon", "uninstall", "--manager", "launchd").status == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try retime.run("daemon", "install", "--manager", "upstart").status == 2)
    }

    /// A user manager for `retime`: a runtime directory with the manager's
    /// socket, and the stand-in `systemctl` (Helpers/systemctl) first on PATH,
    /// keeping its state beside the data directory.
    static func userManager(for retime: inout RetimeProcess, answering: Bool = true, fail: String? = nil) throws -> String {
        let state = retime.dataDirectory + "-systemctl", runtime = retime.dataDirectory + "-run"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runtime + "/systemd", withIntermediateDirectories: true)
        if answering { _ = FileManager.default.createFile(atPath: runtime + "/systemd/private", contents: nil) }
        let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers").path
        retime.environment["PATH"] = helpers + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        retime.environment["XDG_RUNTIME_DIR"] = runtime
        retime.environment["SYSTEMCTL_STAND_IN_STATE"] = state
        if let fail { retime.environment["SYSTEMCTL_STAND_IN_FAIL"] = fail }
        return state
    }

    @Test("systemd: install enables and starts the unit where a user manager runs, and says so; uninstall stops and disables it")
    func systemdEnablesAndStarts() throws {
        var retime = RetimeProcess()
        let state = try Self.userManager(for: &retime)
        let installed = try retime.run("daemon", "install", "--manager", "systemd")
        #expect(installed.status == 0, "\(installed.err)")
        #expect(installed.out.contains("Enabled and started retime.service: the daemon runs now and at every login"), "\(installed.out)")
        let home = retime.dataDirectory + "-home/.config/systemd/user"
        #expect(FileManager.default.fileExists(atPath: state + "/retime.service.active"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: home + "/default.target.wants/retime.service")) != nil)
        let json = try retime.run("daemon", "install", "--manager", "systemd", "--json").json
        #expect(json["started"] as? Bool == true && json["state"] as? String == "active")

        let removed = try retime.run("daemon", "uninstall", "--manager", "systemd")
        #expect(removed.status == 0 && removed.out.hasPrefix("Stopped and disabled retime.service, removed \(home)/retime.service"), "\(removed.out)")
        #expect(!FileManager.default.fileExists(atPath: state + "/retime.service.active"))
        #expect(!FileManager.default.fileExists(atPath: home + "/retime.service"))
        let calls = try String(contentsOfFile: state + "/calls", encoding: .utf8).split(separator: "\n")
        #expect(calls.suffix(4) == ["disable --now retime.service", "is-active retime.service", "daemon-reload", "is-active retime.service"])
    }

    @Test("systemd: with no user manager, install writes the unit, starts nothing and says exactly how to start it (exit 0)")
    func systemdNoUserManager() throws {
        var retime = RetimeProcess()
        let state = try Self.userManager(for: &retime, answering: false)
        let installed = try retime.run("daemon", "install", "--manager", "systemd")
        #expect(installed.status == 0)
        #expect(installed.out.contains("Not started: no systemd user manager runs for this session"), "\(installed.out)")
        #expect(installed.out.contains("Start it now and at every login with: systemctl --user daemon-reload && systemctl --user enable --now retime.service"))
        #expect(!FileManager.default.fileExists(atPath: state + "/calls"), "systemctl was not run")
        retime.environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        let json = try retime.run("daemon", "install", "--manager", "systemd", "--json").json
        #expect(json["started"] as? Bool == false && (json["reason"] as? String ?? "").contains("XDG_RUNTIME_DIR is not set"))
        let removed = try retime.run("daemon", "uninstall", "--manager", "systemd")
        #expect(removed.status == 0 && removed.out.contains("Not stopped:")
                && removed.out.contains("systemctl --user stop retime.service && systemctl --user daemon-reload"), "\(removed.out)")
    }

    @Test("systemd: a user manager that refuses is an error (exit 1) that keeps the unit written and says what systemctl said")
    func systemdRefuses() throws {
        var retime = RetimeProcess()
        _ = try Self.userManager(for: &retime, fail: "enable")
        let installed = try retime.run("daemon", "install", "--manager", "systemd", "--json")
        #expect(installed.status == 1 && installed.errorCode == "daemon.serviceNotChanged", "\(installed.err)")
        #expect(installed.err.contains("the stand-in refuses"))
        #expect(FileManager.default.fileExists(atPath: retime.dataDirectory + "-home/.config/systemd/user/retime.service"))
    }
}
