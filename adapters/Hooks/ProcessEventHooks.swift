import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Runs the executable named after the event in the hooks directory
/// (`hooks.dir/session-started`, ...), detached: the session goes on at
/// once, the hook gets at most `timeout` (then its process group is
/// killed), its output and any failure are appended to `logPath`.
/// A missing hook is the normal case and costs one `access` call. A hook
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

    /// Why the hook at `path` would not be run, or nil if it would: it must
    /// be an executable regular file of this user's that group and others
    /// cannot write.
    public static func problem(with path: String) -> String? {
        var link = stat(), status = stat()
        guard lstat(path, &link) == 0, stat(path, &status) == 0 else { return "cannot be read: \(POSIXFiles.reason())" }
        // A link someone else made could point anywhere they choose later.
        guard link.st_mode & S_IFMT != S_IFLNK || link.st_uid == geteuid() else { return "it is a symbolic link that is not yours" }
        guard status.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else { return "it is not an executable file" }
        guard status.st_uid == geteuid(), status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return "it is writable by others or not yours (chmod go-w)"
        }
        return nil
    }

    /// Why no hook in `directory` would be run, or nil: anyone who may
    /// write the directory may put a hook there (as ssh refuses keys in a
    /// directory others can write).
    public static func problem(withDirectory directory: String) -> String? {
        var status = stat()
        guard stat(directory, &status) == 0 else { return nil }   // no directory, no hooks
        guard status.st_uid == geteuid(), status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return "the hooks directory is writable by others or not yours (chmod go-w \(directory))"
        }
        return nil
    }

    public func listens(to kind: SessionEvent.Kind) -> Bool {
        let path = directory + "/" + kind.rawValue
        return access(path, F_OK) == 0 || POSIXFiles.isSymlink(path)
    }

    public func run(_ event: SessionEvent) {
        let path = directory + "/" + event.kind.rawValue
        guard listens(to: event.kind) else { return }
        if let problem = Self.problem(withDirectory: directory) ?? Self.problem(with: path) {
            logger.warning("hook skipped: \(problem)", metadata: ["hook": "\(path)"])
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
