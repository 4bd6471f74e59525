#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Foundation
import PortContracts
import Testing

@Suite("system install --print")
struct SystemInstallTests {
    @Test("prints a system unit that runs root's own copy of retime (never the binary it was run as), restarts it, starts it before users log in, may write /etc, and is not starved by a user's load; systemd-analyze accepts it")
    func printedUnit() throws {
        let printed = try RetimeProcess().run(["system", "install", "--print"], withDataDir: false)
        #expect(printed.status == 0)
        #expect(printed.out.contains("ExecStart=/usr/local/libexec/retime/retime system run\n"), "\(printed.out)")
        #expect(!printed.out.contains(RetimeProcess.executable.resolvingSymlinksInPath().path), "a user's build folder is never run as root")
        // systemd 252 keeps /etc read-only under ProtectSystem=full whatever
        // ReadWritePaths= says (the systemd-box suite checks the real one).
        #expect(!printed.out.contains("ProtectSystem=full"))
        for line in ["Restart=always", "Before=systemd-user-sessions.service", "StateDirectoryMode=0700", "NoNewPrivileges=true",
                     "WantedBy=multi-user.target", "ProtectSystem=strict", "ReadWritePaths=/etc", "Type=notify", "SyslogIdentifier=retime-shield",
                     // No user's load starves the service every user shares (issue 28).
                     "CPUWeight=1000", "Nice=-10"] {
            #expect(printed.out.contains(line + "\n"), "\(line)")
        }
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retime-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let unit = directory.appendingPathComponent("retime-shield.service")
        // Verified with a binary that exists here (install would have put
        // one at the printed path).
        try printed.out.replacingOccurrences(of: "/usr/local/libexec/retime/retime", with: RetimeProcess.executable.path)
            .write(to: unit, atomically: true, encoding: .utf8)
        let verify = Process()
        verify.executableURL = URL(fileURLWithPath: analyze)
        verify.arguments = ["verify", unit.path]
        let errors = Pipe()
        verify.standardError = errors
        try verify.run()
        verify.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(verify.terminationStatus == 0, "\(said)")
    }

    @Test("uninstall is refused (exit 3) while the service holds a strict block, and changes nothing",
          .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
    func uninstallRefused() throws {
        let system = try SystemServiceHarness()
        let service = try system.start()
        let user = system.client()
        try user.run("group", "create", "work", "--block", "example.com")
        #expect(try user.run("start", "work", "--for", "30m", "--strict").status == 0)
        system.stop(service)
        let refused = try RetimeProcess().run(["system", "uninstall", "--state-dir", system.state, "--json"], withDataDir: false)
        #expect(refused.status == 3 && refused.errorCode == "system.strict", "\(refused.err)")
    }

    @Test("run, install and uninstall refuse a user who is not root (exit 1), saying so",
          .enabled(if: SystemServiceHarness.available, "needs root and setpriv"))
    func rootOnly() throws {
        var nobody = RetimeProcess()
        nobody.launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        for arguments in [["system", "run", "--socket", "/tmp/x.sock"], ["system", "install"], ["system", "uninstall"]] {
            let outcome = try nobody.run(arguments, withDataDir: false)
            #expect(outcome.status == 1 && outcome.err.contains("runs as root only"), "\(arguments): \(outcome.err)")
        }
    }
}
