import Domain
import Foundation

/// `retime daemon run | status | install | uninstall`.
enum DaemonCommands {
    static let spec = CommandSpec("daemon", summary: "Run the daemon that ends sessions on time and runs schedules.",
                                  subcommands: [Run.spec, Status.spec, Install.spec, Uninstall.spec])

    struct Run: RetimeCommand {
        static let spec = CommandSpec("run", summary: "Run in the foreground (what a service manager starts).")
        static let reconciliation = Reconciliation.never
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            try await DaemonRunner(runtime: services.runtime).run()
            return .ok("")
        }
    }

    struct Status: RetimeCommand {
        static let spec = CommandSpec("status", summary: "Say whether the daemon runs (exit 0) or not (exit 1), since when, and what is next.")
        static let reconciliation = Reconciliation.never
        // Whether the daemon runs must be answerable even when the data is
        // not readable: the data is read only for what is next, if it can be.
        struct Services: CommandServices {
            let outlook: DaemonOutlookUseCase
            init(_ services: ServiceSource) throws { outlook = try services() }
        }
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let outlook = await services.outlook.execute()
            let pid = outlook.running?.pid
            let next = outlook.next.map { (what: Self.words($0.what), at: $0.at) }
            let json = Documents.document([
                "running": .bool(pid != nil), "pid": pid.map { .int(Int64($0)) } ?? .null,
                "uptimeSeconds": outlook.uptime.map(JSONValue.double) ?? .null,
                "next": next.map { .object(["what": .string($0.what), "at": Documents.time($0.at)]) } ?? .null,
            ])
            let upcoming = next.map { "; next: \($0.what) at \(LocalTime.dateTime($0.at))" } ?? "; nothing is due"
            guard let pid else { throw DaemonNotRunning(json: json, upcoming: next == nil ? "" : upcoming) }
            return CommandResult(json: json, human: "The daemon runs (pid \(pid), up \(DurationValue.format(outlook.uptime ?? 0)))\(upcoming).")
        }

        /// What is next, as `daemon status` has always said it.
        static func words(_ what: DaemonOutlookUseCase.DueWork.What) -> String {
            switch what {
            case .endSession: "end the active session"
            case .interval(let kind, let schedule): "\(kind.rawValue) of \(schedule)"
            }
        }
    }

    /// For the commands that run or install the daemon itself: where the
    /// data is and the environment, nothing built from them.
    struct Runtime: CommandServices {
        let runtime: RuntimeContext
        init(_ services: ServiceSource) throws { runtime = try services() }
    }

    static let managerOption = OptionSpec.value("manager", "NAME",
                                                help: "systemd (a user unit; the default on Linux) or launchd (a user agent; the default on macOS).",
                                                choices: ["systemd", "launchd"])

    static func manager(_ parsed: ParsedCommand) throws(UsageError) -> ServiceManager {
        guard let text = parsed.value("manager") else { return .native }
        guard let manager = ServiceManager(rawValue: text.lowercased()) else {
            throw UsageError(.invalidValue, "invalid value '\(text)' for --manager", hint: "give systemd or launchd",
                             command: parsed.commandName)
        }
        return manager
    }

    struct Install: RetimeCommand {
        static let spec = CommandSpec("install", summary: "Install a user service that runs the daemon at login (systemd or launchd).",
                                      options: [.flag("print", help: "Print the definition instead of writing it."), DaemonCommands.managerOption])
        static let reconciliation = Reconciliation.never
        let print: Bool, manager: ServiceManager
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            print = parsed.flag("print")
            manager = try DaemonCommands.manager(parsed)
        }
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            let definition = manager.definition(binary: Self.executablePath(), dataDirectory: services.runtime.dataDirectory)
            let path = manager.path(services.runtime.environment)
            let json = Documents.document(["unit": .string(definition), "path": .string(path), "manager": .string(manager.rawValue)])
            if print { return CommandResult(json: json, human: definition) }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data((definition + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return CommandResult(json: json, human: "Wrote \(path).\n" + manager.enableHint(path: path))
        }

        /// The absolute path of this binary, as the definition must name it.
        static func executablePath() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        }
    }

    struct Uninstall: RetimeCommand {
        static let spec = CommandSpec("uninstall", summary: "Remove the user service.", options: [DaemonCommands.managerOption])
        static let reconciliation = Reconciliation.never
        let manager: ServiceManager
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) { manager = try DaemonCommands.manager(parsed) }
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            let path = manager.path(services.runtime.environment)
            let links = manager.enablementLinks(services.runtime.environment)
                .filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: $0)) != nil }   // dangling ones too
            guard FileManager.default.fileExists(atPath: path) || !links.isEmpty else {
                return .ok("Nothing installed at \(path); nothing to remove.")
            }
            for link in links { try FileManager.default.removeItem(atPath: link) }
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            let enabled = links.isEmpty ? "" : " and its start at login (\(links.joined(separator: ", ")))"
            return .ok("Removed \(path)\(enabled). " + manager.disableHint)
        }
    }
}

/// `daemon status` when none runs: exit 1, as the contract says, with the
/// status document still printed.
struct DaemonNotRunning: RetimeCLIError, ReportingError {
    var json: JSONValue
    /// What it would do next (`; next: ...`), or empty.
    var upcoming: String
    var report: String { "The daemon is not running\(upcoming)." }
    var code: String { "daemon.notRunning" }
    var exitCode: Int32 { 1 }
    var hint: String? { "start it with 'retime daemon run', or 'retime daemon install' for a user service" }
    var description: String { "the daemon is not running" }
}
