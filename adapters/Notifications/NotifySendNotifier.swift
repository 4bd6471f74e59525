import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Desktop notifications through `notify-send` (libnotify), found on PATH
/// when the notifier is made; where there is none, `make` returns nil and
/// the composition root uses no notifier. Runs detached with a 5 s limit,
/// like a hook, so a stuck notification daemon never holds retime up.
public struct NotifySendNotifier: Notifier {
    public let executable: String
    private let logPath: String?
    private let environment: [String: String]

    public init(executable: String, logPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.executable = executable
        self.logPath = logPath
        self.environment = environment
    }

    /// A notifier over the first `notify-send` on `PATH`, or nil.
    /// Nil where a notification could not be shown: no `notify-send`, or no
    /// session bus for it to reach a desktop by (a server, a cron job, CI),
    /// so `notify on` (the default) costs nothing there.
    public static func make(logPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> NotifySendNotifier? {
        guard hasSessionBus(environment), let found = executable(environment) else { return nil }
        return NotifySendNotifier(executable: found, logPath: logPath, environment: environment)
    }

    /// Why no notification can be shown here (`doctor` says so), or nil
    /// when one can.
    public static func unavailability(_ environment: [String: String]) -> String? {
        if executable(environment) == nil { return "no notify-send on PATH (Debian: apt-get install libnotify-bin)" }
        if !hasSessionBus(environment) { return "no desktop session bus to show them on (DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus)" }
        return nil
    }

    private static func executable(_ environment: [String: String]) -> String? {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/notify-send" }.first { access($0, X_OK) == 0 }
    }

    /// A D-Bus session bus: named in the environment, or at the runtime
    /// directory's `bus` socket, where systemd puts it.
    static func hasSessionBus(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var info = stat()
        return stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    public func notify(_ event: SessionEvent) {
        let (title, body) = Self.text(for: event)
        _ = DetachedProcess.start(executable, arguments: ["--app-name=retime", title, body], environment: environment,
                                  logPath: logPath, label: "notify-send", timeout: .seconds(5))
    }

    /// What the notification says.
    static func text(for event: SessionEvent, timeZone: TimeZoneRules = SystemTimeZone.current().rules) -> (title: String, body: String) {
        let group = event.groupName ?? "a deleted group"
        func clock(_ date: Date?) -> String {
            guard let date else { return "" }
            return String(Timestamp.format(date, offset: timeZone.offset(at: date), fractionDigits: 0).dropFirst(11).prefix(5))
        }
        switch (event.kind, event.warning) {
        case (.intervalWarning, .intervalWillEndWarning?):
            return ("Focus ends soon", "\(group) is unblocked at \(clock(event.plannedEnd)).")
        case (.intervalWarning, _):
            return ("Focus starts soon", "\(event.origin.description.replacingAll("schedule:", with: "")) blocks \(group) soon, until \(clock(event.plannedEnd)).")
        case (.phaseStarted, _) where event.phase?.kind.isBreak == true:
            return ("Break", "\(group) is unblocked until \(clock(event.phase?.end)).")
        case (.phaseStarted, _):
            return ("Back to work", "\(group) is blocked again (round \(event.phase?.round ?? 1)).")
        case (.sessionEnded, _):
            return ("Focus session ended", "\(group) is unblocked (\(event.outcome?.rawValue ?? "ended")).")
        default:
            return ("retime", "\(event.kind.rawValue): \(group)")
        }
    }
}
