import CRetimeLinux
import Dispatch
import Domain
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Files written, replaced or deleted in some directories, as wake reasons:
/// an `inotify` descriptor read by a dispatch source while started; a burst
/// of events is one post, and only events `relevant` picks count.
public final class DirectoryWatcher: WakeWatcher {
    /// Where the system's time zone is set on Linux.
    public static let systemTimeZoneFiles = ["/etc/localtime", "/etc/timezone"]

    public let name: String
    /// Whether any of its directories could be watched.
    public let isWatching: Bool
    private let descriptor: Int32
    private let reason: WakeReason
    private let relevant: @Sendable (UnsafeRawPointer, Int) -> Bool
    private let source = Mutex<RunningSource?>(nil)

    private init(name: String, directories: [String], reason: WakeReason,
                 relevant: @escaping @Sendable (UnsafeRawPointer, Int) -> Bool) throws {
        descriptor = retime_inotify_create()
        guard descriptor >= 0 else { throw DaemonError.unavailable("inotify: \(POSIXFiles.reason())") }
        var watching = false
        for directory in Set(directories) {
            watching = retime_inotify_watch_writes(descriptor, directory) >= 0 || watching
        }
        self.name = name
        self.isWatching = watching
        self.reason = reason
        self.relevant = relevant
    }

    deinit {
        // A source still reading is cancelled first; the descriptor is
        // closed once its handler can no longer run.
        let fd = descriptor
        guard var running = source.withLock({ $0 }) else {
            close(fd)
            return
        }
        running.cleanup = { close(fd) }
        running.cancelSoon()
    }

    /// The store's directory: a suite file replaced, written or deleted is
    /// a change of the data. Lock files taken, temp files being written and
    /// backups are not, or every pass's own lock would wake the next.
    public static func data(directory: String) throws -> DirectoryWatcher {
        try POSIXFiles.ensureDirectory(directory)
        let watcher = try DirectoryWatcher(name: "data", directories: [directory], reason: .dataChanged) {
            retime_inotify_names_ending($0, $1, ".json") == 1
        }
        guard watcher.isWatching else { throw DaemonError.unavailable("cannot watch \(directory): \(POSIXFiles.reason())") }
        return watcher
    }

    /// The system's time-zone files. They are replaced, not written (a new
    /// symlink renamed over the old), so their directories are watched and
    /// the events filtered by name. When none can be watched, `isWatching`
    /// is false and nothing is ever posted.
    public static func timeZone(files: [String] = systemTimeZoneFiles) throws -> DirectoryWatcher {
        let names = files.map { String($0.split(separator: "/").last ?? "") }
        return try DirectoryWatcher(name: "time zone", directories: files.map(POSIXFiles.parentDirectory(of:)),
                                    reason: .timeZoneChanged) { buffer, count in
            names.contains { retime_inotify_names(buffer, count, $0) == 1 }
        }
    }

    /// Any of `files` written or replaced (a hosts file edited by hand).
    public static func files(_ files: [String], name: String, posting reason: WakeReason = .dataChanged) throws -> DirectoryWatcher {
        let names = files.map { String($0.split(separator: "/").last ?? "") }
        return try DirectoryWatcher(name: name, directories: files.map(POSIXFiles.parentDirectory(of:)), reason: reason) { buffer, count in
            names.contains { retime_inotify_names(buffer, count, $0) == 1 }
        }
    }

    public func start(posting mailbox: WakeMailbox) throws {
        let fd = descriptor, relevant = relevant, reason = reason
        let reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "retime.watch.\(name)"))
        reader.setEventHandler {
            if DirectoryWatcher.drain(fd, relevant) { mailbox.post(reason) }
        }
        source.withLock { $0 = RunningSource(source: reader) }
        reader.resume()
    }

    public func stop() async {
        let running = source.withLock { running in
            defer { running = nil }
            return running
        }
        await running?.cancel()
    }

    /// Reads every event waiting; whether any of them was relevant.
    private static func drain(_ fd: Int32, _ relevant: (UnsafeRawPointer, Int) -> Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var changed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { return changed }
            changed = buffer.withUnsafeBytes { relevant($0.baseAddress!, count) } || changed
        }
    }
}
