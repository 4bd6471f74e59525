import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The user's systemd (`systemctl --user`) as the `LoginServiceManager`:
/// `daemon-reload` and `enable --now` at install, checked with `is-active`;
/// `disable --now` before the unit is removed and `daemon-reload` after.
///
/// A user manager answers on `$XDG_RUNTIME_DIR/systemd/private`; where
/// there is none (no login session: `sudo`, `su`, cron, a container without
/// systemd) nothing is run and the outcome says what to run instead.
public struct SystemdUserManager: LoginServiceManager {
    /// The environment systemctl runs with (its `XDG_RUNTIME_DIR` and
    /// `DBUS_SESSION_BUS_ADDRESS` find the user's manager; `PATH` finds it).
    let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    public func enable(_ path: String) -> LoginServiceOutcome {
        let unit = Self.unit(path)
        let manually = "systemctl --user daemon-reload && systemctl --user enable --now \(unit)"
        let systemctl: String
        switch reach() {
        case .failure(let absent): return .unavailable(reason: absent.reason, manually: manually + Self.fromALogin)
        case .success(let found): systemctl = found
        }
        if let error = run(systemctl, "daemon-reload") {
            return .unavailable(reason: "systemctl --user daemon-reload failed: \(error)", manually: manually + Self.fromALogin)
        }
        if let error = run(systemctl, "enable", "--now", unit) {
            return .failed(reason: "systemctl --user enable --now \(unit) failed: \(error)", manually: "journalctl --user -u \(unit), then \(manually)")
        }
        let state = self.state(systemctl, unit)
        guard state == "active" else {
            return .failed(reason: "enabled, but systemctl --user is-active \(unit) says \(state)",
                           manually: "journalctl --user -u \(unit) tells why; then systemctl --user restart \(unit)")
        }
        return .done(state: state)
    }

    public func disable(_ path: String) -> LoginServiceOutcome {
        let unit = Self.unit(path)
        // Said for after the unit's file is gone, when `disable` no longer can.
        let manually = "systemctl --user stop \(unit) && systemctl --user daemon-reload"
        let systemctl: String
        switch reach() {
        case .failure(let absent): return .unavailable(reason: absent.reason, manually: manually + Self.inALogin)
        case .success(let found): systemctl = found
        }
        if let error = run(systemctl, "disable", "--now", unit) {
            return .failed(reason: "systemctl --user disable --now \(unit) failed: \(error)", manually: manually)
        }
        let state = self.state(systemctl, unit)
        guard state != "active" else { return .failed(reason: "disabled, but \(unit) is still active", manually: manually) }
        return .done(state: state)
    }

    public func forget(_ path: String) -> LoginServiceOutcome {
        let unit = Self.unit(path)
        let systemctl: String
        switch reach() {
        case .failure(let absent): return .unavailable(reason: absent.reason, manually: "systemctl --user daemon-reload" + Self.inALogin)
        case .success(let found): systemctl = found
        }
        if let error = run(systemctl, "daemon-reload") {
            return .failed(reason: "systemctl --user daemon-reload failed: \(error)", manually: "systemctl --user daemon-reload")
        }
        return .done(state: state(systemctl, unit))
    }

    static let inALogin = " (in a login session of yours)"
    static let fromALogin = " (in a login session of yours; to run it with no one logged in, as root: loginctl enable-linger USER)"

    static func unit(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? "" }

    struct Absent: Error { var reason: String }

    /// systemctl's path when a user manager answers for this session.
    func reach() -> Result<String, Absent> {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            return .failure(Absent(reason: "no systemd user manager for this session ($XDG_RUNTIME_DIR is not set; a login sets it, sudo and su do not)"))
        }
        guard FileManager.default.fileExists(atPath: runtime + "/systemd/private") else {
            return .failure(Absent(reason: "no systemd user manager runs for this session (no \(runtime)/systemd/private)"))
        }
        guard let systemctl = ToolProcess.locate("systemctl", environment: environment) else {
            return .failure(Absent(reason: "systemctl is not installed"))
        }
        return .success(systemctl)
    }

    /// nil when `systemctl --user ARGUMENTS` succeeded, else what it said.
    func run(_ systemctl: String, _ arguments: String...) -> String? {
        do {
            let outcome = try ToolProcess.run([systemctl, "--user"] + arguments, environment: environment)
            guard outcome.status != 0 else { return nil }
            let said = outcome.errors.trimmed
            return said.isEmpty ? "exit \(outcome.status)" : said
        } catch {
            return "\(error)"
        }
    }

    /// What `is-active` says (it exits non-zero for every state but active).
    func state(_ systemctl: String, _ unit: String) -> String {
        let outcome = try? ToolProcess.run([systemctl, "--user", "is-active", unit], environment: environment)
        let said = String(decoding: outcome?.output ?? Data(), as: UTF8.self).trimmed
        return said.isEmpty ? "unknown" : said
    }
}

/// A `LoginServiceManager` retime does not drive: it changes nothing and
/// says what to run. launchd's agents: retime is built and tested on Linux
/// only, so it does not run launchctl on anyone's Mac untested.
public struct ManualLoginService: LoginServiceManager {
    let reason: String
    let enableCommand: @Sendable (String) -> String
    let disableCommand: @Sendable (String) -> String

    public init(reason: String, enable: @escaping @Sendable (String) -> String, disable: @escaping @Sendable (String) -> String) {
        self.reason = reason
        self.enableCommand = enable
        self.disableCommand = disable
    }

    /// launchd: `launchctl bootstrap` loads and starts the agent, `bootout`
    /// (by label, which works without the plist) stops it.
    public static func launchd(label: String) -> ManualLoginService {
        ManualLoginService(reason: "retime does not run launchctl itself",
                           enable: { "launchctl bootstrap gui/$(id -u) \($0)" }, disable: { _ in "launchctl bootout gui/$(id -u)/\(label)" })
    }

    public func enable(_ path: String) -> LoginServiceOutcome { .unavailable(reason: reason, manually: enableCommand(path)) }
    public func disable(_ path: String) -> LoginServiceOutcome { .unavailable(reason: reason, manually: disableCommand(path)) }
    public func forget(_ path: String) -> LoginServiceOutcome { .unavailable(reason: reason, manually: disableCommand(path)) }
}
