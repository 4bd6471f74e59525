import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `retime system install [--print]` and `retime system uninstall`: the
/// systemd system unit `retime-shield.service`, and the root-owned copy of
/// retime it runs.
enum SystemInstallCommands {
    static let unitPath = SystemServiceConsole.unitPath

    /// The unit for the binary at `binary` (root's own copy). Ready (its
    /// `READY=1`: blocks restored, socket open) before users can log in, so
    /// every block is back before anyone could use the machine; restarted
    /// at once if it dies. Hardened as far as it still
    /// works, as a real systemd applies it: the whole file system is read
    /// only but /etc (for /etc/hosts: with `ProtectSystem=full`, systemd 252
    /// keeps /etc read-only whatever `ReadWritePaths=` says), its state and
    /// its socket's directory. Every user shares it, so no user's load may
    /// starve it: `CPUWeight=` gives it a weight of its own (and makes
    /// systemd split the CPU between system.slice and user.slice, where no
    /// other unit asked for that), `Nice=-10` puts it first where no CPU
    /// controller splits the CPU at all (docs/performance.md: the service's
    /// answers under a user's load, per-user slices or none).
    static func unit(binary: String) -> String {
        """
        [Unit]
        Description=retime system service: focus blocks the blocked user cannot lift
        After=local-fs.target
        Before=systemd-user-sessions.service

        [Service]
        Type=notify
        ExecStart=\(binary) system run
        Restart=always
        RestartSec=1
        TimeoutStopSec=5
        CPUWeight=1000
        Nice=-10
        SyslogIdentifier=\(SystemServiceConsole.journalIdentifier)
        RuntimeDirectory=retime
        RuntimeDirectoryMode=0755
        StateDirectory=retime
        StateDirectoryMode=0700
        ProtectSystem=strict
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
                                      discussion: "Copies this binary to \(SystemServiceConsole.binaryPath) (root's; replaced at once on a reinstall), "
                                          + "and the unit runs that copy, never a file another user could write.",
                                      options: [.flag("print", help: "Print the unit instead of writing it (needs no root).")])
        static let reconciliation = Reconciliation.never
        let print: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { print = parsed.flag("print") }
        func run(_ services: NoServices, _ io: CommandIO) async throws -> CommandResult {
            let binary = SystemServiceConsole.binaryPath
            let unit = SystemInstallCommands.unit(binary: binary)
            let json = Documents.document(["unit": .string(unit), "path": .string(SystemInstallCommands.unitPath),
                                           "binary": .string(binary)])
            if print { return CommandResult(json: json, human: unit) }
            guard geteuid() == 0 else { throw SystemServiceError.notRoot }
            let source = DaemonCommands.Install.executablePath()
            do { try SystemServiceConsole.installBinary(from: source) } catch {
                throw SystemServiceError(code: "system.unsafePath", message: "cannot install the service's binary at \(binary): \(error)",
                                         exitCode: 1, hint: "the service runs as root: every directory above its binary must be root's alone")
            }
            try Data((unit + "\n").utf8).write(to: URL(fileURLWithPath: SystemInstallCommands.unitPath), options: .atomic)
            try SystemServiceConsole.prepareStateDirectory(SystemOptions().stateDirectory)
            SystemServiceConsole.audit("installed: \(binary) (copied from \(source)) runs as \(SystemInstallCommands.unitPath) by uid \(getuid())")
            let copied = "Copied \(source) to \(binary) (root's) and wrote \(SystemInstallCommands.unitPath)"
            guard SystemInstallCommands.systemdRuns else {
                return CommandResult(json: json, human: copied + ". systemd is not running here: start '\(binary) system run' as root some other way.")
            }
            try SystemInstallCommands.systemctl("daemon-reload")
            try SystemInstallCommands.systemctl("enable", "retime-shield.service")
            // A reinstall runs the new copy at once; the blocks are restored
            // before the socket opens again.
            try SystemInstallCommands.systemctl("restart", "retime-shield.service")
            return CommandResult(json: json, human: copied + "; enabled and started retime-shield.service. "
                                 + "'retime config set shield auto' (the default) now blocks through it.")
        }
    }

    struct Uninstall: RetimeCommand {
        static let spec = CommandSpec("uninstall", summary: "Stop and remove the system unit and its binary (root); refused while a strict block is held.",
                                      options: [.value("state-dir", "DIR", help: "The service's state, to look for strict blocks (default /var/lib/retime).")])
        static let reconciliation = Reconciliation.never
        let stateDirectory: String
        init(_ parsed: ParsedCommand, values: DateValue) { stateDirectory = parsed.value("state-dir") ?? SystemOptions().stateDirectory }
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            guard geteuid() == 0 else { throw SystemServiceError.notRoot }
            if let strict = try await SystemServiceConsole.heldStrictBlock(stateDirectory: stateDirectory) {
                SystemServiceConsole.audit("uninstall refused: a strict block of uid \(strict.uid) is held")
                throw HeldBlockError.strict(until: strict.end(at: Date()))
            }
            let installed = FileManager.default.fileExists(atPath: SystemInstallCommands.unitPath)
            if installed, SystemInstallCommands.systemdRuns { try? SystemInstallCommands.systemctl("disable", "--now", "retime-shield.service") }
            // Stopped, the service leaves its layers up (a restart must not
            // open a gap): lifted here, by the same layers.
            var options = SystemOptions()
            options.stateDirectory = stateDirectory
            var lifted = 0
            if FileManager.default.fileExists(atPath: stateDirectory) {
                lifted = try await SystemRoot.releaseEverything(options, context: services.runtime).count
            }
            let removedBinary = try SystemServiceConsole.removeBinary()
            SystemServiceConsole.removeSocket()
            if installed {
                try FileManager.default.removeItem(atPath: SystemInstallCommands.unitPath)
                if SystemInstallCommands.systemdRuns { try? SystemInstallCommands.systemctl("daemon-reload") }
            }
            guard installed || removedBinary || lifted > 0 else { return .ok("Nothing installed at \(SystemInstallCommands.unitPath).") }
            SystemServiceConsole.audit("uninstalled by uid \(getuid()); blocks lifted: \(lifted)")
            let blocks = lifted == 0 ? "" : " Lifted \(lifted) block(s) it held."
            return .ok("Stopped and removed retime-shield.service and \(SystemServiceConsole.binaryPath); no hosts block or firewall table is left."
                       + blocks + " Its state stays in \(stateDirectory).")
        }
    }

    static func systemctl(_ arguments: String...) throws {
        guard try SystemServiceConsole.run(["/usr/bin/systemctl"] + arguments) == 0 else {
            throw SystemServiceError(code: "system.systemctl", message: "systemctl \(arguments.joined(separator: " ")) failed",
                                     exitCode: 1, hint: "see 'journalctl -u retime-shield.service'")
        }
    }
}
