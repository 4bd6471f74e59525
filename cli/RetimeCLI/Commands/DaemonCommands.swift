#if canImport(Glibc)
import Domain
import FoundationEssentials
import Glibc
import JSONDocument
#endif

/// `retime daemon run | status | install | uninstall`.
enum DaemonCommands {
    static let spec = CommandSpec("daemon", summary: "Run the daemon that ends sessions on time and runs schedules.",
                                  subcommands: [Run.spec, Status.spec, Install.spec, Uninstall.spec])

    struct Run: RetimeCommand {
        static let spec = CommandSpec("run", summary: "Run in the foreground (what a service manager starts).")
        static let reconciliation = Reconciliation.never
        init(_ parsed: ParsedCommand, values: DateValue) {}
        func run(_ services: DaemonCommands.Runtime, _ io: CommandIO) async throws -> CommandResult {
            // A person who runs it by hand sees that it runs; a service
            // manager (no terminal) gets only the log.
            if io.console.isTerminal {
                io.console.err("retime daemon: running for \(services.runtime.dataDirectory) (pid \(getpid()));"
                               + " logging at \(services.runtime.logLevel) and above (--log-level info shows each event); Ctrl-C stops it.")
            }
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
            @Resolved var outlook: DaemonOutlookUseCase
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
            case .interval(let kind, let schedule):
                switch kind {
                case .intervalWillStartWarning: "warn that '\(schedule)' starts soon"
                case .intervalDidStart: "start '\(schedule)'"
                case .intervalWillEndWarning: "warn that '\(schedule)' ends soon"
                case .intervalDidEnd: "end '\(schedule)'"
                }
            }
        }
    }

    /// For the commands that run or install the daemon itself: where the
    /// data is and the environment, nothing built from them.
    struct Runtime: CommandServices {
        @Resolved var runtime: RuntimeContext
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

    /// For `install` and `uninstall`: where the data is, and the service
    /// manager of each kind, which loads, starts and stops the definition.
    struct Managed: CommandServices {
        @Resolved var runtime: RuntimeContext
        @ResolvedEach var managers: [ServiceManager: any LoginServiceManager]
    }

    struct Install: RetimeCommand {
        static let spec = CommandSpec("install", summary: "Install and start the user service that runs the daemon now and at every login (launchd: only written).",
                                      options: [.flag("print", help: "Print the definition instead of writing it."), DaemonCommands.managerOption])
        static let reconciliation = Reconciliation.never
        let print: Bool, manager: ServiceManager
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) {
            print = parsed.flag("print")
            manager = try DaemonCommands.manager(parsed)
        }
        func run(_ services: DaemonCommands.Managed, _ io: CommandIO) async throws -> CommandResult {
            let definition = manager.definition(binary: Self.executablePath(), dataDirectory: services.runtime.dataDirectory)
            let path = manager.path(services.runtime.environment)
            var document: [String: JSONValue] = ["unit": .string(definition), "path": .string(path), "manager": .string(manager.rawValue)]
            if print { return CommandResult(json: Documents.document(document), human: definition) }
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            try FileManager.default.createDirectory(atPath: folder.isEmpty ? "/" : folder, withIntermediateDirectories: true)
            try Data((definition + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            let outcome = services.managers[manager]!.enable(path)
            document.merge(Self.describe(outcome)) { _, new in new }
            let json = Documents.document(document)
            switch outcome {
            case .done:
                return CommandResult(json: json, human: "Wrote \(path). Enabled and started \(manager.serviceName): the daemon runs now and at every login.")
            case .unavailable(let reason, let manually):
                return CommandResult(json: json, human: "Wrote \(path). Not started: \(reason).\nStart it now and at every login with: \(manually)")
            case .failed(let reason, let manually):
                throw DaemonServiceNotChanged(json: json, report: "Wrote \(path).", reason: "\(manager.serviceName) did not start: \(reason)", hint: manually)
            }
        }

        /// The outcome's part of the JSON document.
        static func describe(_ outcome: LoginServiceOutcome) -> [String: JSONValue] {
            switch outcome {
            case .done(let state): ["started": .bool(true), "state": .string(state), "reason": .null, "manually": .null]
            case .unavailable(let reason, let manually), .failed(let reason, let manually):
                ["started": .bool(false), "state": .null, "reason": .string(reason), "manually": .string(manually)]
            }
        }

        /// The absolute path of this binary, as the definition must name it.
        static func executablePath() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
        }
    }

    struct Uninstall: RetimeCommand {
        static let spec = CommandSpec("uninstall", summary: "Stop the user service and remove it.", options: [DaemonCommands.managerOption])
        static let reconciliation = Reconciliation.never
        let manager: ServiceManager
        init(_ parsed: ParsedCommand, values: DateValue) throws(UsageError) { manager = try DaemonCommands.manager(parsed) }
        func run(_ services: DaemonCommands.Managed, _ io: CommandIO) async throws -> CommandResult {
            let path = manager.path(services.runtime.environment)
            let links = manager.enablementLinks(services.runtime.environment)
                .filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: $0)) != nil }   // dangling ones too
            let exists = FileManager.default.fileExists(atPath: path)
            guard exists || !links.isEmpty else {
                return .ok("Nothing installed at \(path); nothing to remove.")
            }
            let managed = services.managers[manager]!
            // Stopped and disabled while its file is there (systemd before
            // v257 cannot disable a unit whose file is gone); a link left
            // (no manager answered, or the file was already gone) is removed
            // here, else it would start a later install at the next login.
            let stopped = exists ? managed.disable(path) : nil
            let left = links.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: $0)) != nil }
            for link in left { try FileManager.default.removeItem(atPath: link) }
            if exists { try FileManager.default.removeItem(atPath: path) }
            if case .done = stopped { _ = managed.forget(path) }
            let removed = path + (left.isEmpty ? "" : " and its start at login (\(left.joined(separator: ", ")))")
            switch stopped {
            case .done?:
                return .ok("Stopped and disabled \(manager.serviceName), removed \(removed).")
            case .unavailable(let reason, let manually)?:
                return .ok("Removed \(removed). Not stopped: \(reason).\nA daemon it started runs until: \(manually)")
            case .failed(let reason, let manually)?:
                throw DaemonServiceNotChanged(json: Documents.ok, report: "Removed \(removed).", reason: "\(manager.serviceName) was not stopped: \(reason)", hint: manually)
            case nil:
                return .ok("Removed \(removed).")
            }
        }
    }
}

/// `daemon install` or `uninstall` whose file was written or removed, but
/// whose manager refused to start or stop it: exit 1, saying what was done.
struct DaemonServiceNotChanged: RetimeCLIError, ReportingError {
    var json: JSONValue
    var report: String
    var reason: String
    var hint: String?
    var code: String { "daemon.serviceNotChanged" }
    var exitCode: Int32 { 1 }
    var description: String { reason }
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
