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
    /// Adds watches for directories that appeared since (a new device's
    /// folder); true if it added any.
    private let rescan: (@Sendable (Int32) -> Bool)?
    private let source = Mutex<RunningSource?>(nil)

    private init(name: String, directories: [String], reason: WakeReason, rescan: (@Sendable (Int32) -> Bool)? = nil,
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
        self.rescan = rescan
        _ = rescan?(descriptor)
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

    /// The change logs of a shared data folder (`DATA_DIR/devices/<id>/changes/`):
    /// a log appended to, or replaced by a sync tool (which writes a
    /// temporary file and renames it over the log), is a change of the
    /// data. The folders of devices that appear later are watched as they
    /// appear, and their appearing is itself a change (their first logs may
    /// have come with them).
    public static func changeLogs(devices directory: String) throws -> DirectoryWatcher {
        try POSIXFiles.ensureDirectory(directory)
        let watched = Mutex<Set<String>>([])
        let rescan: @Sendable (Int32) -> Bool = { fd in
            var added = false
            for device in POSIXFiles.names(in: directory) where HybridTimestamp.isDeviceID(device) {
                for folder in [directory + "/" + device, directory + "/" + device + "/changes"] where !watched.withLock({ $0.contains(folder) }) {
                    guard retime_inotify_watch_writes(fd, folder) >= 0 else { continue }
                    watched.withLock { _ = $0.insert(folder) }
                    added = true
                }
            }
            return added
        }
        let watcher = try DirectoryWatcher(name: "shared data", directories: [directory], reason: .dataChanged, rescan: rescan) {
            retime_inotify_names_ending($0, $1, ".jsonl") == 1
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
        let fd = descriptor, relevant = relevant, reason = reason, rescan = rescan
        let reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "retime.watch.\(name)"))
        reader.setEventHandler {
            let changed = DirectoryWatcher.drain(fd, relevant)
            let appeared = rescan?(fd) ?? false
            if changed || appeared { mailbox.post(reason) }
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
