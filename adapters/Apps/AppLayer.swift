import CRetimeLinux
import Domain
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The system service's app layer: a blocking user's processes whose name
/// (the kernel's `comm`, or the file `/proc/PID/exe` runs) matches one of
/// its `app:NAME` targets are terminated, SIGTERM then SIGKILL two seconds
/// later, when the block is raised and whenever one starts or renames
/// itself. Starts are learned from the kernel's process events; where they
/// do not reach the service, `/proc` is read every two seconds instead, and
/// the layer says so. Never another user's process, never retime itself.
public final class AppLayer: BlockLayer, ServiceEventSource, Sendable {
    public var name: String { "apps" }
    /// The fallback's interval, and the grace between SIGTERM and SIGKILL.
    public static let pollInterval: TimeInterval = 2
    public static let grace: TimeInterval = 2
    /// retime's own name, which no block terminates.
    static let ownName = "retime"

    private let logger: Logger
    /// The service's own executable: its clients are never terminated.
    private let ownExecutable: String?
    private let eventsReachUs: Bool
    private let mode: String

    private struct State {
        /// Blocked names (lowercased) by uid.
        var wanted: [UInt32: Set<String>] = [:]
        var events: Int32 = -1
        var poller: DeadlineTimer?
        var terminated = 0
    }
    private let state = Mutex(State())

    /// `eventsReachUs`: whether the kernel's process events arrive here
    /// (`probeProcessEvents()`), else `/proc` is polled.
    public init(logger: Logger, eventsReachUs: Bool, reason: String) {
        self.logger = logger
        self.ownExecutable = ProcessTable.executable(getpid())
        self.eventsReachUs = eventsReachUs
        self.mode = reason
    }

    deinit {
        state.withLock { if $0.events >= 0 { close($0.events) } }
    }

    /// Whether process events reach this process: subscribes, starts
    /// `/bin/true`, and waits up to a second for its exec to be reported.
    /// The kernel sends them only to its initial network, user and PID
    /// namespaces, and to root.
    public static func probeProcessEvents() -> (works: Bool, reason: String) {
        let fd = retime_proc_events_open()
        guard fd >= 0 else {
            // The connector answers only in the initial network namespace.
            let why = errno == ECONNREFUSED ? "the service runs in a network namespace of its own" : POSIXFiles.reason()
            return (false, "no kernel process events (\(why)); /proc is read every 2 s")
        }
        defer { close(fd) }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/bin/true") ? "/bin/true" : "/usr/bin/true")
        guard (try? probe.run()) != nil else { return (false, "process events could not be tested; /proc is read every 2 s") }
        let child = probe.processIdentifier
        let deadline = Date().addingTimeInterval(1)
        var pids = [Int32](repeating: 0, count: 256)
        var overflowed: Int32 = 0
        while Date() < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1_000)))
            let count = Int(retime_proc_events_read(fd, &pids, Int32(pids.count), &overflowed))
            if pids[..<count].contains(child) {
                probe.waitUntilExit()
                return (true, "terminates blocked apps as they start (kernel process events)")
            }
        }
        probe.waitUntilExit()
        return (false, "the kernel's process events do not reach the service (another namespace); /proc is read every 2 s")
    }

    // MARK: BlockLayer

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        var wanted: [UInt32: Set<String>] = [:]
        for block in blocks {
            for case .app(let app) in block.targets { wanted[block.uid, default: []].insert(app.lowercased()) }
        }
        let changed = state.withLock { state -> Bool in
            guard state.wanted != wanted else { return false }
            state.wanted = wanted
            return true
        }
        guard changed else { return nil }
        if wanted.isEmpty {
            stopWatching()
        } else {
            startWatching()
            scanAll()
        }
        return nil
    }

    public func report() async -> LayerReport {
        let (users, terminated) = state.withLock { ($0.wanted.count, $0.terminated) }
        return LayerReport(name: name, active: true, detail: "\(mode); users with apps blocked: \(users), processes terminated: \(terminated)")
    }

    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        guard case .app(let app) = target else { return nil }
        let held = state.withLock { $0.wanted[uid]?.contains(app.lowercased()) ?? false }
        let when = eventsReachUs ? "as it starts" : "within 2 s of its start (/proc is read every 2 s)"
        return held ? LayerCheck(layer: name, blocked: true, detail: "terminates \(app) for you \(when)")
            : LayerCheck(layer: name, blocked: false, detail: "not among your blocks' apps")
    }

    // MARK: ServiceEventSource

    public var descriptor: Int32 {
        state.withLock { $0.events >= 0 ? $0.events : ($0.poller?.descriptor ?? -1) }
    }

    /// Reads the events (or the poll's tick) and terminates what matches.
    public func handle() {
        let (events, poller) = state.withLock { ($0.events, $0.poller) }
        if let poller {
            _ = poller.takeExpiry()
            poller.arm(Date().addingTimeInterval(Self.pollInterval))
            scanAll()
            return
        }
        guard events >= 0 else { return }
        var pids = [Int32](repeating: 0, count: 1_024)
        var overflowed: Int32 = 0
        let count = Int(retime_proc_events_read(events, &pids, Int32(pids.count), &overflowed))
        if overflowed != 0 {
            logger.warning("process events were dropped; every process is looked at")
            scanAll()
            return
        }
        for pid in Set(pids[..<count]) { if let entry = ProcessTable.entry(pid) { terminateIfBlocked(entry) } }
    }

    // MARK: Terminating

    private func startWatching() {
        state.withLock { state in
            guard state.events < 0, state.poller == nil else { return }
            if eventsReachUs {
                state.events = retime_proc_events_open()
                if state.events >= 0 { return }
                logger.error("process events could not be subscribed to: \(POSIXFiles.reason()); reading /proc every 2 s")
            }
            state.poller = try? DeadlineTimer()
            state.poller?.arm(Date().addingTimeInterval(Self.pollInterval))
        }
    }

    private func stopWatching() {
        state.withLock { state in
            if state.events >= 0 { close(state.events) }
            state.events = -1
            state.poller = nil
        }
    }

    private func scanAll() {
        let pids = ProcessTable.pids()
        logger.debug("every process looked at", metadata: ["processes": "\(pids.count)"])
        for pid in pids { if let entry = ProcessTable.entry(pid) { terminateIfBlocked(entry) } }
    }

    /// The blocked name `entry` matches, if it is a blocking user's process.
    private func match(_ entry: ProcessTable.Entry) -> String? {
        guard entry.pid != getpid(), let names = state.withLock({ $0.wanted[entry.uid] }) else { return nil }
        if let own = ownExecutable, entry.executable == own { return nil }
        let comm = entry.comm.lowercased()
        let file = entry.executable.map { String($0.split(separator: "/").last ?? "").lowercased() }
        // The kernel keeps 15 bytes of a name. `app:retime` names no app:
        // any build of retime is the user's way to the service.
        return names.first { $0 != Self.ownName && ($0 == file || $0 == comm || (comm.utf8.count == 15 && $0.utf8.starts(with: comm.utf8))) }
    }

    private func terminateIfBlocked(_ entry: ProcessTable.Entry) {
        guard let app = match(entry) else { return }
        // The pidfd names this process even if its number is reused later;
        // it is checked again once held, so the signal goes to what matched.
        let pidfd = retime_pidfd_open(entry.pid)
        if pidfd >= 0 {
            guard let again = ProcessTable.entry(entry.pid), again.uid == entry.uid, match(again) != nil else { close(pidfd); return }
            _ = retime_pidfd_signal(pidfd, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.grace) {
                _ = retime_pidfd_signal(pidfd, SIGKILL)
                close(pidfd)
            }
        } else if errno != ESRCH {
            kill(entry.pid, SIGTERM)
        } else {
            return
        }
        state.withLock { $0.terminated += 1 }
        logger.info("terminated a blocked app", metadata: ["uid": "\(entry.uid)", "pid": "\(entry.pid)", "app": "\(app)"])
    }
}

/// Something the system service's loop waits on besides requests and
/// deadlines: a descriptor to poll (-1 while it has nothing to wait for),
/// and what to do when it is readable.
public protocol ServiceEventSource: Sendable {
    var descriptor: Int32 { get }
    func handle()
}
