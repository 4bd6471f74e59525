import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `retime system install [--print]` and `retime system uninstall`: the
/// systemd system unit `retime-shield.service`.
enum SystemInstallCommands {
    static let unitPath = "/etc/systemd/system/retime-shield.service"

    /// The unit for `binary`. Started before users can log in, so every
    /// block is back before anyone could use the machine; restarted at once
    /// if it dies. Hardened as far as it still works: it writes only
    /// /etc/hosts (hence /etc), its state and its socket's directory.
    static func unit(binary: String) -> String {
        """
        [Unit]
        Description=retime system service: focus blocks the blocked user cannot lift
        After=local-fs.target
        Before=systemd-user-sessions.service

        [Service]
        Type=simple
        ExecStart=\(binary) system run
        Restart=always
        RestartSec=1
        TimeoutStopSec=5
        RuntimeDirectory=retime
        RuntimeDirectoryMode=0755
        StateDirectory=retime
        StateDirectoryMode=0700
        ProtectSystem=full
        ReadWritePaths=/etc
        ProtectHome=read-only
        PrivateTmp=true
        NoNewPrivileges=true
        ProtectKernelModules=true
        ProtectControlGroups=true
        RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET AF_INET6

        [Install]
        WantedBy=multi-user.target
        """
    }

    static var systemdRuns: Bool { FileManager.default.fileExists(atPath: "/run/systemd/system") }

    struct Install: RetimeCommand {
        static let spec = CommandSpec("install", summary: "Install and start the system unit retime-shield.service (root).",
                                      options: [.flag("print", help: "Print the unit instead of writing it (needs no root).")])
        static let reconciliation = Reconciliation.never
        let print: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { print = parsed.flag("print") }
        func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
            let unit = SystemInstallCommands.unit(binary: DaemonCommands.Install.executablePath())
            let json = Documents.document(["unit": .string(unit), "path": .string(SystemInstallCommands.unitPath)])
            if print { return CommandResult(json: json, human: unit) }
            guard geteuid() == 0 else { throw SystemServiceError.notRoot }
            try Data((unit + "\n").utf8).write(to: URL(fileURLWithPath: SystemInstallCommands.unitPath), options: .atomic)
            try SystemServiceConsole.prepareStateDirectory(SystemOptions().stateDirectory)
            guard SystemInstallCommands.systemdRuns else {
                return CommandResult(json: json, human: "Wrote \(SystemInstallCommands.unitPath). systemd is not running here: start 'retime system run' as root some other way.")
            }
            try SystemInstallCommands.systemctl("daemon-reload")
            try SystemInstallCommands.systemctl("enable", "--now", "retime-shield.service")
            return CommandResult(json: json, human: "Wrote \(SystemInstallCommands.unitPath), enabled and started retime-shield.service. "
                                 + "'retime config set shield auto' (the default) now blocks through it.")
        }
    }

    struct Uninstall: RetimeCommand {
        static let spec = CommandSpec("uninstall", summary: "Stop and remove the system unit (root); refused while a strict block is held.",
                                      options: [.value("state-dir", "DIR", help: "The service's state, to look for strict blocks (default /var/lib/retime).")])
        static let reconciliation = Reconciliation.never
        let stateDirectory: String
        init(_ parsed: ParsedCommand, values: DateValue) { stateDirectory = parsed.value("state-dir") ?? SystemOptions().stateDirectory }
        func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
            guard geteuid() == 0 else { throw SystemServiceError.notRoot }
            if let strict = try await SystemServiceConsole.heldStrictBlock(stateDirectory: stateDirectory) {
                throw HeldBlockError.strict(until: strict.end(at: Date()))
            }
            if SystemInstallCommands.systemdRuns { try? SystemInstallCommands.systemctl("disable", "--now", "retime-shield.service") }
            guard FileManager.default.fileExists(atPath: SystemInstallCommands.unitPath) else { return .ok("Nothing installed at \(SystemInstallCommands.unitPath).") }
            try FileManager.default.removeItem(atPath: SystemInstallCommands.unitPath)
            if SystemInstallCommands.systemdRuns { try? SystemInstallCommands.systemctl("daemon-reload") }
            return .ok("Stopped and removed retime-shield.service; its state stays in /var/lib/retime.")
        }
    }

    static func systemctl(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SystemServiceError(code: "system.systemctl", message: "systemctl \(arguments.joined(separator: " ")) failed",
                                     exitCode: 1, hint: "see 'journalctl -u retime-shield.service'")
        }
    }
}
