import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the executable named after the event in the hooks directory
/// (`hooks.dir/session-started`, ...), detached: the session goes on at
/// once, the hook gets at most `timeout` (then its process group is
/// killed), its output and any failure are appended to `logPath`.
/// A missing hook is the normal case and costs one `stat` call. A hook
/// that others could have changed (not owned by this user, or writable by
/// group or others) is not run, as ssh refuses such key files.
public struct ProcessEventHooks: EventHooks {
    public let directory: String
    public let logPath: String
    public let timeout: Duration
    private let environment: [String: String]
    private let logger: Logger

    public init(directory: String, logPath: String, timeout: Duration = .seconds(5),
                environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        self.directory = directory
        self.logPath = logPath
        self.timeout = timeout
        self.environment = environment
        self.logger = logger
    }

    public func run(_ event: SessionEvent) {
        let path = directory + "/" + event.kind.rawValue
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else {
            logger.warning("hook is not an executable file; skipped", metadata: ["hook": "\(path)"])
            return
        }
        guard status.st_uid == geteuid(), status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            logger.warning("hook is writable by others or not yours; skipped (chmod go-w)", metadata: ["hook": "\(path)"])
            return
        }
        let logDirectory = String(logPath[..<(logPath.lastIndex(of: "/") ?? logPath.startIndex)])
        if !logDirectory.isEmpty { try? POSIXFiles.ensureDirectory(logDirectory) }
        RotatingFile(path: logPath).rotateIfFull()
        let started = DetachedProcess.start(path, arguments: [], environment: HookEnvironment.environment(for: event, inheriting: environment),
                                            logPath: logPath, label: event.kind.rawValue, timeout: timeout)
        if !started {
            logger.warning("hook could not be started: \(POSIXFiles.reason())", metadata: ["hook": "\(path)"])
        }
    }
}
