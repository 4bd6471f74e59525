import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How the daemon is installed as a user service: a systemd user unit on
/// Linux, a launchd agent on macOS. Both run `retime --data-dir DIR daemon
/// run` with this binary's absolute path, start at login and restart it
/// when it fails (not when it exits cleanly after SIGTERM).
enum ServiceManager: String, CaseIterable, Sendable {
    case systemd, launchd

    /// The platform's own manager.
    static var native: ServiceManager {
        #if os(macOS)
        .launchd
        #else
        .systemd
        #endif
    }

    static let launchdLabel = "net.retime.daemon"

    /// Where the definition goes for this user.
    func path(_ environment: [String: String]) -> String {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        switch self {
        case .systemd:
            let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
            return config + "/systemd/user/retime.service"
        case .launchd:
            return home + "/Library/LaunchAgents/\(Self.launchdLabel).plist"
        }
    }

    /// The definition's text.
    func definition(binary: String, dataDirectory: String) -> String {
        let arguments = [binary, "--data-dir", dataDirectory, "daemon", "run"]
        switch self {
        case .systemd:
            return """
            [Unit]
            Description=retime: ends focus sessions on time and runs schedules

            [Service]
            ExecStart=\(arguments.map(Self.systemdQuoted).joined(separator: " "))
            Restart=on-failure
            RestartSec=2

            [Install]
            WantedBy=default.target
            """
        case .launchd:
            return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>Label</key>
              <string>\(Self.launchdLabel)</string>
              <key>ProgramArguments</key>
              <array>
            \(arguments.map { "    <string>\(Self.xmlEscaped($0))</string>" }.joined(separator: "\n"))
              </array>
              <key>RunAtLoad</key>
              <true/>
              <key>KeepAlive</key>
              <dict>
                <key>SuccessfulExit</key>
                <false/>
              </dict>
              <key>ProcessType</key>
              <string>Background</string>
            </dict>
            </plist>
            """
        }
    }

    /// The service's name, as its manager knows it.
    var serviceName: String {
        switch self {
        case .systemd: "retime.service"
        case .launchd: Self.launchdLabel
        }
    }

    /// The links that enable the definition at login, which removing it must
    /// remove too: systemd before v257 cannot disable a unit whose file is
    /// gone, and a link left behind would enable a later install at once.
    func enablementLinks(_ environment: [String: String]) -> [String] {
        switch self {
        case .systemd:
            let path = path(environment)
            return [String(path.dropLast("retime.service".count)) + "default.target.wants/retime.service"]
        case .launchd:
            return []   // launchd has no links: bootout by label works without the plist
        }
    }

    /// An ExecStart word: quoted (with `\` and `"` escaped) when it holds
    /// whitespace or quotes, `%` doubled (systemd's specifier character).
    static func systemdQuoted(_ word: String) -> String {
        let escaped = word.replacingAll("%", with: "%%")
        guard escaped.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }) else { return escaped }
        return "\"" + escaped.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\""
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;")
            .replacingAll(">", with: "&gt;").replacingAll("\"", with: "&quot;")
    }
}
