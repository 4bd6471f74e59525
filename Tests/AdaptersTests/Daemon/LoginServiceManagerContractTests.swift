import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// The login-service managers `daemon install` drives keep the
/// `LoginServiceManager` contract: systemd's user manager (systemctl as a
/// stand-in script on PATH; the real one is checked in a booted system by
/// Tests/System/systemd-box-suite.sh), where no user manager answers, and
/// launchd's (which retime does not drive).
@Suite("Login service managers keep the LoginServiceManager contract")
struct LoginServiceManagerContractTests {
    static let standIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../RetimeCLITests/Helpers").standardized.path

    /// A home with its unit directory, a runtime directory (with the user
    /// manager's socket when `manager`), and the stand-in's state.
    struct Home {
        let root = TemporaryDirectory()
        var unitDirectory: String { root.path + "/home/.config/systemd/user" }
        var state: String { root.path + "/state" }

        init(manager: Bool) throws {
            for directory in [unitDirectory, state, root.path + "/run/systemd"] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            if manager { _ = FileManager.default.createFile(atPath: root.path + "/run/systemd/private", contents: nil) }
        }

        func environment(runtime: Bool = true, fail: String? = nil) -> [String: String] {
            var environment = ["PATH": LoginServiceManagerContractTests.standIn + ":/usr/bin:/bin", "HOME": root.path + "/home",
                               "SYSTEMCTL_STAND_IN_STATE": state]
            if runtime { environment["XDG_RUNTIME_DIR"] = root.path + "/run" }
            if let fail { environment["SYSTEMCTL_STAND_IN_FAIL"] = fail }
            return environment
        }

        var observe: @Sendable () -> (running: Bool, enabledAtLogin: Bool) {
            let state = state, units = unitDirectory
            return {
                (FileManager.default.fileExists(atPath: state + "/retime.service.active"),
                 (try? FileManager.default.destinationOfSymbolicLink(atPath: units + "/default.target.wants/retime.service")) != nil)
            }
        }

        var calls: [String] {
            ((try? String(contentsOfFile: state + "/calls", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    @Test(arguments: LoginServiceManagerContract.checks)
    func systemdUserManager(_ check: ContractCheck<LoginServiceManagerContract.Factory>) async throws {
        try await check.run {
            let home = try Home(manager: true)
            return .init(manager: SystemdUserManager(environment: home.environment()), path: home.unitDirectory + "/retime.service",
                         reachable: true, observe: home.observe)
        }
    }

    @Test(arguments: LoginServiceManagerContract.checks)
    func systemdWithNoRuntimeDirectory(_ check: ContractCheck<LoginServiceManagerContract.Factory>) async throws {
        try await check.run {
            let home = try Home(manager: true)
            return .init(manager: SystemdUserManager(environment: home.environment(runtime: false)),
                         path: home.unitDirectory + "/retime.service", reachable: false, observe: home.observe)
        }
    }

    @Test(arguments: LoginServiceManagerContract.checks)
    func systemdWithNoUserManager(_ check: ContractCheck<LoginServiceManagerContract.Factory>) async throws {
        try await check.run {
            let home = try Home(manager: false)
            return .init(manager: SystemdUserManager(environment: home.environment()), path: home.unitDirectory + "/retime.service",
                         reachable: false, observe: home.observe)
        }
    }

    @Test(arguments: LoginServiceManagerContract.checks)
    func launchd(_ check: ContractCheck<LoginServiceManagerContract.Factory>) async throws {
        try await check.run {
            let home = try Home(manager: true)
            return .init(manager: ManualLoginService.launchd(label: "net.retime.daemon"), path: home.unitDirectory + "/retime.service",
                         reachable: false, observe: home.observe)
        }
    }

    @Test("systemd: install runs daemon-reload, enable --now and is-active; uninstall disable --now, then daemon-reload; no manager, no call")
    func systemdCalls() throws {
        let home = try Home(manager: true)
        let path = home.unitDirectory + "/retime.service"
        try Data("[Unit]\n".utf8).write(to: URL(fileURLWithPath: path))
        let manager = SystemdUserManager(environment: home.environment())
        #expect(manager.enable(path) == .done(state: "active"))
        #expect(manager.disable(path) == .done(state: "inactive"))
        try FileManager.default.removeItem(atPath: path)
        #expect(manager.forget(path) == .done(state: "inactive"))
        #expect(home.calls == ["daemon-reload", "enable --now retime.service", "is-active retime.service",
                               "disable --now retime.service", "is-active retime.service", "daemon-reload", "is-active retime.service"])

        let absent = try Home(manager: false)
        guard case .unavailable(let reason, let manually) = SystemdUserManager(environment: absent.environment()).enable(path) else {
            Issue.record("no user manager: not unavailable"); return
        }
        #expect(reason.contains("/systemd/private") && manually.hasPrefix("systemctl --user daemon-reload && systemctl --user enable --now retime.service"))
        #expect(absent.calls.isEmpty)
    }

    @Test("systemd: a manager that refuses to enable, or a service that does not stay up, is a failure that says what it said")
    func systemdRefuses() throws {
        let home = try Home(manager: true)
        let path = home.unitDirectory + "/retime.service"
        try Data("[Unit]\n".utf8).write(to: URL(fileURLWithPath: path))
        guard case .failed(let reason, let manually) = SystemdUserManager(environment: home.environment(fail: "enable")).enable(path) else {
            Issue.record("a refused enable: not failed"); return
        }
        #expect(reason.contains("the stand-in refuses") && manually.contains("journalctl --user -u retime.service"))
        // Enabled, but is-active does not say active (the daemon went down at once).
        guard case .failed(let down, _) = SystemdUserManager(environment: home.environment(fail: "is-active")).enable(path) else {
            Issue.record("not active after enable: not failed"); return
        }
        #expect(down.contains("is-active retime.service says unknown"), "\(down)")
        // A reload that fails means no manager answers: unavailable, nothing enabled.
        let reload = try Home(manager: true)
        try Data("[Unit]\n".utf8).write(to: URL(fileURLWithPath: reload.unitDirectory + "/retime.service"))
        guard case .unavailable = SystemdUserManager(environment: reload.environment(fail: "daemon-reload"))
            .enable(reload.unitDirectory + "/retime.service") else { Issue.record("a failed reload: not unavailable"); return }
        #expect(!reload.observe().running)
    }
}
