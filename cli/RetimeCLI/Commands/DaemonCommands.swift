import Adapters
import Domain
import Foundation

/// `retime daemon run | status | install | uninstall`.
enum DaemonCommands {
    static let spec = CommandSpec("daemon", summary: "Run the daemon that ends sessions on time and runs schedules.",
                                  subcommands: [Run.spec, Status.spec, Install.spec, Uninstall.spec])

    struct Run: RetimeCommand {
        static let spec = CommandSpec("run", summary: "Run in the foreground (what a service manager starts).")
        static let reconcilesFirst = false
        static let usesServices = false
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ context: CommandContext) async throws -> CommandResult {
            try await DaemonRunner(runtime: context.runtime).run()
            return .ok("")
        }
    }

    struct Status: RetimeCommand {
        static let spec = CommandSpec("status", summary: "Say whether the daemon runs (exit 0) or not (exit 1), since when, and what is next.")
        static let reconcilesFirst = false
        // Whether the daemon runs must be answerable even when the data is not readable.
        static let usesServices = false
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ context: CommandContext) async throws -> CommandResult {
            let lock = DaemonLock(dataDirectory: context.runtime.dataDirectory)
            let pid = lock.runningPID()
            let now = Date()
            let uptime = lock.runningSince().map { now.timeIntervalSince($0) }
            var next: (what: String, at: Date)?
            if let services = try? CLIRoot.container(context.runtime) { next = try? await nextEvent(services, now: now) }
            let json = Documents.document([
                "running": .bool(pid != nil), "pid": pid.map { .int(Int64($0)) } ?? .null,
                "uptimeSeconds": uptime.map(JSONValue.double) ?? .null,
                "next": next.map { .object(["what": .string($0.what), "at": Documents.time($0.at)]) } ?? .null,
            ])
            guard let pid else { throw DaemonNotRunning(json: json) }
            let upcoming = next.map { "; next: \($0.what) at \(LocalTime.dateTime($0.at))" } ?? "; nothing is due"
            return CommandResult(json: json, human: "The daemon runs (pid \(pid), up \(DurationValue.format(uptime ?? 0)))\(upcoming).")
        }

        /// What the daemon will do next: end the active session or an interval event.
        private func nextEvent(_ services: Container, now: Date) async throws -> (what: String, at: Date)? {
            let sessionEnd = try await services.resolve((any SessionRepository).self).current()
                .flatMap { session in session.isActive ? session.plannedEnd.map { ("end the active session", $0) } : nil }
            let event = try await services.resolve(UpcomingEventsUseCase.self).execute(from: now, count: 1).first
                .map { ("\($0.kind.rawValue) of \($0.schedule.name)", $0.at) }
            return [sessionEnd, event].compactMap { $0 }.min { $0.1 < $1.1 }.map { (what: $0.0, at: $0.1) }
        }
    }

    struct Install: RetimeCommand {
        static let spec = CommandSpec("install", summary: "Install a systemd user unit that runs the daemon.",
                                      options: [.flag("print", help: "Print the unit instead of writing it.")])
        static let reconcilesFirst = false
        static let usesServices = false
        let print: Bool
        init(_ parsed: ParsedCommand, values: DateValue) { print = parsed.flag("print") }
        func run(_ context: CommandContext) async throws -> CommandResult {
            let unit = Self.unit(binary: Self.executablePath(), dataDirectory: context.runtime.dataDirectory)
            let path = DaemonCommands.unitPath(context.runtime.environment)
            if print { return CommandResult(json: Documents.document(["unit": .string(unit), "path": .string(path)]), human: unit) }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(unit.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return CommandResult(json: Documents.document(["unit": .string(unit), "path": .string(path)]),
                                 human: "Wrote \(path).\nStart it now and at every login: systemctl --user enable --now retime")
        }

        static func unit(binary: String, dataDirectory: String) -> String {
            """
            [Unit]
            Description=retime: ends focus sessions on time and runs schedules

            [Service]
            ExecStart=\(binary) --data-dir \(dataDirectory) daemon run
            Restart=on-failure
            RestartSec=2

            [Install]
            WantedBy=default.target
            """
        }

        /// The absolute path of this binary, as the unit must name it.
        static func executablePath() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        }
    }

    struct Uninstall: RetimeCommand {
        static let spec = CommandSpec("uninstall", summary: "Remove the systemd user unit.")
        static let reconcilesFirst = false
        static let usesServices = false
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ context: CommandContext) async throws -> CommandResult {
            let path = DaemonCommands.unitPath(context.runtime.environment)
            guard FileManager.default.fileExists(atPath: path) else { return .ok("No unit at \(path); nothing to remove.") }
            try FileManager.default.removeItem(atPath: path)
            return .ok("Removed \(path). Stop a running daemon with: systemctl --user disable --now retime")
        }
    }

    static func unitPath(_ environment: [String: String]) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/systemd/user/retime.service"
    }
}

/// `daemon status` when none runs: exit 1, as the contract says, with the
/// status document still printed.
struct DaemonNotRunning: RetimeCLIError, ReportingError {
    var json: JSONValue
    var report: String { "The daemon is not running." }
    var code: String { "daemon.notRunning" }
    var exitCode: Int32 { 1 }
    var hint: String? { "start it with 'retime daemon run', or 'retime daemon install' for a user service" }
    var description: String { "the daemon is not running" }
}
