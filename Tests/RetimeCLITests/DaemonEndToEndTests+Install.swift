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
}
