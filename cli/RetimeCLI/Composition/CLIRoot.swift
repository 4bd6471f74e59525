import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one-shot CLI's composition root: the shared registration plus a
/// logger on standard error. Nothing is built until a command asks for it,
/// so a command pays only for what it uses; the whole graph is validated
/// by a test and by `doctor`, not before every command.
enum CLIRoot {
    static func registry(_ context: RuntimeContext) -> Registry {
        var registry = ServiceRegistration.shared(context)
        let handler = StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)
        registry.register(Logger.self, value: Logger(label: "retime.cli", handler: handler))
        let layout = context.layout
        // `status --follow` waits as the daemon does, on this device's store
        // and every device's change logs; opened only when it follows.
        registry.register(FollowSignals.self, value: FollowSignals {
            try DataFollowSignals(store: try context.device().store, devices: layout.devices)
        })
        registry.register {
            CheckBlocksUseCase(groups: try $0.resolve(), shields: try $0.resolve())
        }
        registry.register(DoctorUseCase.self) { resolver in
            // This device's folder (its files moved in first); without an
            // id (a state directory that cannot be written) the old places.
            let device = try? context.device()
            let files = DataDirectoryHealth(paths: .init(root: layout.root, store: layout.store, deviceStore: device?.store, history: layout.history,
                                                         audit: device?.audit ?? layout.root + "/audit.jsonl",
                                                         deviceID: context.deviceIdentity.file, legacyDeviceID: layout.legacyDeviceID),
                                            folder: context.store)
            // Built even when the configured shield cannot be: doctor must
            // report on damaged settings, not fail on them. Each inspector
            // is handed what it reads, never the resolver.
            let settings = Result { try resolver.resolve(Settings.self) }
            // The shield's finding is handed the session the doctor reads
            // once for all its checks.
            var inspections: [DoctorUseCase.Inspection] = [
                .inspector(files), .inspector(CompositionHealth(runtime: context)),
                .session(ShieldAccessHealth(shields: try resolver.resolve())),
                .inspector(NotificationHealth(settings: try? settings.get(), environment: context.environment)),
                .inspector(TimeZoneHealth(environment: context.environment)),
                .inspector(PresenceHealth(presence: try resolver.resolve(), clock: try resolver.resolve(), threshold: try? settings.get().awayThreshold,
                                           daemon: try resolver.resolve((any DaemonPresence).self))),
                .inspector(SettingsHealth(read: { try settings.get() })),
                .inspector(SyncHealth(status: { [sync = try resolver.resolve(SyncStatusUseCase.self)] in try sync.execute(recording: false) })),
                .inspector(RecordHealth(groups: { [groups = try resolver.resolve((any GroupRepository).self)] in try await groups.names() },
                                        schedules: { [schedules = try resolver.resolve((any ScheduleRepository).self)] in try await schedules.all() })),
            ]
            #if os(Linux)
            inspections.append(.inspector(DesktopHealth(environment: context.environment)))
            #endif
            return DoctorUseCase(inspections: inspections,
                                 daemon: try resolver.resolve(),
                                 blocks: try resolver.resolve(), test: try? resolver.resolve(TestShieldUseCase.self), sessions: try resolver.resolve())
        }
        return registry
    }

    static func container(_ context: RuntimeContext) -> Container {
        Container(registry(context))
    }

    /// Where the data is and how verbose to be, from the global options and
    /// the environment; the log level may come from the data's settings.
    /// The local time zone of `environment` (its `TZ`, else
    /// /etc/localtime), read from the tz database's files.
    static func localTimeZone(_ environment: [String: String]) -> TimeZoneRules {
        SystemTimeZone.current(environment).rules
    }

    static func runtime(_ parsed: ParsedCommand, environment: [String: String]) throws -> RuntimeContext {
        let data = RuntimeContext.dataDirectory(option: parsed.globals.dataDirectory, environment: environment)
        // A data directory named by hand that does not exist is a typo far
        // more often than a fresh start: a command that only reads says so
        // rather than print "No sessions." (one that saves creates it).
        let named = !(parsed.globals.dataDirectory ?? "").isEmpty || !(environment["RETIME_HOME"] ?? "").isEmpty
        if named, Self.readers.contains(parsed.path), !FileManager.default.fileExists(atPath: data) {
            throw DataDirectoryMissing(path: data, viaOption: !(parsed.globals.dataDirectory ?? "").isEmpty)
        }
        let store = RuntimeContext.store(of: data, environment: environment)
        return RuntimeContext(dataDirectory: data, logLevel: try logLevel(parsed, environment, settings: { try StoreSettings.snapshot(of: store, dataDirectory: data) }),
                              environment: environment, store: store)
    }

    /// The commands that only read the data, and `undo`, which has nothing
    /// to undo where there is no data (and would make the directory).
    static let readers: Set<[String]> = [["log"], ["report"], ["export"], ["status"], ["group", "list"], ["group", "show"],
                                         ["schedule", "list"], ["schedule", "show"], ["schedule", "next"],
                                         ["config", "list"], ["config", "get"], ["auth", "status"], ["undo"]]

    /// `--log-level`, else `$RETIME_LOG_LEVEL`, else config `log.level`, else
    /// warning for the CLI, info for the daemon and notice for the system
    /// service.
    static func logLevel(_ parsed: ParsedCommand, _ environment: [String: String], settings: () throws -> Settings) throws -> LogLevel {
        if let text = parsed.globals.logLevel ?? environment["RETIME_LOG_LEVEL"] {
            guard let level = LogLevel(rawValue: text.lowercased()) else {
                throw UsageError(.invalidValue, "invalid log level '\(text)'",
                                 hint: "choose " + LogLevel.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return level
        }
        let configured = (try? settings())?.logLevel
        // The daemon under a service manager logs what it does (journald
        // keeps it); run by hand on a terminal, it stays quiet unless asked.
        let daemonUnattended = parsed.path == ["daemon", "run"] && isatty(STDERR_FILENO) != 1
        // The system service's journal is the administrator's record: a
        // release, a refused early end, a layer that fails are notices.
        if parsed.path == ["system", "run"] { return configured ?? .notice }
        return configured ?? (daemonUnattended ? .info : .warning)
    }
}

/// A reading command pointed at a data directory that does not exist.
struct DataDirectoryMissing: RetimeCLIError {
    var path: String
    var viaOption: Bool
    var code: String { "data.notFound" }
    var exitCode: Int32 { 1 }
    var hint: String? {
        "check the path \(viaOption ? "given to --data-dir" : "in $RETIME_HOME"); a command that saves something (group create, start) creates it"
    }
    var description: String { "no retime data at \(path)" }
}
