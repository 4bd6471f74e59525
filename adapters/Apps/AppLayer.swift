import Domain
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The system service's app layer: a blocking user's processes that are one
/// of its `app:NAME` targets (`AppMatcher`: the executable NAME resolves to,
/// under any name, or a process by that name), and every process of theirs
/// forked from one, are terminated, SIGTERM then SIGKILL two seconds later
/// (`Terminations`), when the block is raised and whenever one starts,
/// forks or renames itself. Those are learned from the kernel's process
/// events; where they do not reach the service, `/proc` is read every two
/// seconds instead, and the layer says so. Never another user's process,
/// never retime itself.
public final class AppLayer: BlockLayer, ServiceEventSource, Sendable {
    public var name: String { "apps" }
    /// The fallback's interval, and the grace between SIGTERM and SIGKILL.
    public static let pollInterval: TimeInterval = 2
    public static let grace: TimeInterval = 2

    let logger: Logger
    /// The service's own executable: its clients are never terminated.
    private let ownExecutable: String?
    private let ownIdentity: ExecutableIdentity?
    private let eventsReachUs: Bool
    private let mode: String
    let terminations = Terminations()

    struct State {
        var matcher: AppMatcher
        /// The apps each user blocks, as the blocks name them.
        var apps: [UInt32: Set<String>] = [:]
        /// Bumped at each change of the blocks: what was judged before is
        /// not kept (`clean`).
        var generation = 0
        var clean = CleanProcesses()
        var events: Int32 = -1
        var poller: DeadlineTimer?
        var terminated = 0
    }
    let state: Mutex<State>

    /// `eventsReachUs`: whether the kernel's process events arrive here
    /// (`probeProcessEvents()`), else `/proc` is polled.
    public init(logger: Logger, eventsReachUs: Bool, reason: String) {
        self.logger = logger
        self.ownExecutable = ProcessTable.executable(getpid())
        self.ownIdentity = ExecutableIdentity.running(getpid())
        self.eventsReachUs = eventsReachUs
        self.mode = reason
        self.state = Mutex(State(matcher: AppMatcher(own: ownIdentity, ownPath: ownExecutable)))
    }

    deinit {
        state.withLock { if $0.events >= 0 { close($0.events) } }
    }

    /// Whether process events reach this process (`ProcessEvents.probe`).
    public static func probeProcessEvents() -> (works: Bool, reason: String) { ProcessEvents.probe() }

    // MARK: BlockLayer

    public func enforce(_ blocks: [HeldBlock]) async throws -> Date? {
        var apps: [UInt32: Set<String>] = [:]
        for block in blocks {
            for case .app(let app) in block.targets { apps[block.uid, default: []].insert(app) }
        }
        guard state.withLock({ $0.apps != apps }) else { return nil }
        // Resolved at each change of the blocks, off the lock: a few stats.
        let matcher = AppMatcher(apps: apps, own: ownIdentity, ownPath: ownExecutable)
        state.withLock {
            $0.apps = apps
            $0.matcher = matcher
            $0.generation += 1
            $0.clean.forget()
        }
        if apps.isEmpty {
            stopWatching()
        } else {
            startWatching()
            scanAll()
        }
        return nil
    }

    public func report() async -> LayerReport {
        let (users, terminated) = state.withLock { ($0.matcher.users, $0.terminated) }
        return LayerReport(name: name, active: true, detail: mode, usage: "users with apps blocked: \(users), processes terminated: \(terminated)")
    }

    public func check(_ target: Target, for uid: UInt32) async -> LayerCheck? {
        guard case .app(let app) = target else { return nil }
        let held = state.withLock { $0.matcher.names[uid]?.contains(app.lowercased()) ?? false }
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
        var batch: ProcessEvents.Batch
        repeat {
            batch = ProcessEvents.read(events)
            if batch.overflowed {
                logger.warning("process events were dropped; every process is looked at")
                state.withLock { $0.clean.forget() }
                scanAll()
                continue
            }
            let (matcher, generation) = state.withLock { ($0.matcher, $0.generation) }
            for event in batch.events { consider(event, matcher, generation) }
        } while batch.more
    }

    // MARK: Terminating

    /// One event: a fork of a process being ended is ended with it; a fork
    /// of a process known to run no app runs none either; any other new or
    /// renamed process is looked at: first only at what it runs and is
    /// called, and who runs it only when that might be an app.
    private func consider(_ event: ProcessEvents.Event, _ matcher: AppMatcher, _ generation: Int) {
        if event.kind == .fork {
            if let parent = terminations.doomed(event.parent) {
                if let child = ProcessTable.entry(event.pid), child.uid == parent.uid {
                    end(child, app: terminations.app(event.parent) ?? child.comm, inTree: true, deadline: parent.deadline, matcher)
                }
                return
            }
            if state.withLock({ $0.clean.contains(event.parent) }) {
                mark(event.pid, clean: true, generation)
                return
            }
        }
        let glance = ProcessTable.glance(event.pid)
        let mayMatch = glance.map(matcher.mayMatch) ?? false
        mark(event.pid, clean: glance != nil && !mayMatch, generation)
        guard mayMatch, let entry = ProcessTable.entry(event.pid) else { return }
        let parent = terminations.doomed(entry.parent).flatMap { $0.uid == entry.uid ? $0 : nil }
        if let app = matcher.match(entry) {
            end(entry, app: app, inTree: false, deadline: deadline(entry, app), matcher)
            endChildren(of: entry, app: app, matcher)
        } else if let parent, !matcher.spared(entry) {
            end(entry, app: terminations.app(entry.parent) ?? entry.comm, inTree: true, deadline: parent.deadline, matcher)
        }
    }

    private func mark(_ pid: Int32, clean: Bool, _ generation: Int) {
        state.withLock { if $0.generation == generation { $0.clean.set(pid, clean: clean) } }
    }

    /// When a blocked app just found gets SIGKILL: with its parent, else
    /// after the grace. Reading /proc, it cannot see a fork whose parent has
    /// gone: the same app of its user found while one is being ended gets
    /// that one's deadline, so a chain of forks that each exit before the
    /// next reading is not given a grace at every link.
    func deadline(_ entry: ProcessTable.Entry, _ app: String) -> Date {
        let parent = terminations.doomed(entry.parent).flatMap { $0.uid == entry.uid ? $0.deadline : nil }
        let sameApp = state.withLock({ $0.poller != nil }) ? terminations.deadline(uid: entry.uid, app: app) : nil
        return [parent, sameApp].compactMap { $0 }.min() ?? Date().addingTimeInterval(Self.grace)
    }

    /// Ends a blocked app, or a process of its tree (`inTree`: checked again
    /// only for its user and retime's name, as a child may have exec'd since).
    func end(_ entry: ProcessTable.Entry, app: String, inTree: Bool, deadline: Date, _ matcher: AppMatcher) {
        let ended = terminations.end(entry.pid, uid: entry.uid, app: app, deadline: deadline) { again in
            inTree ? !matcher.spared(again) : matcher.match(again) != nil
        }
        guard ended else { return }
        state.withLock { $0.terminated += 1 }
        // The journal's record at its default level: an app ended for a block.
        logger.notice(inTree ? "terminated a process of a blocked app" : "terminated a blocked app",
                    metadata: ["uid": "\(entry.uid)", "pid": "\(entry.pid)", "app": "\(app)"])
    }

    private func startWatching() {
        state.withLock { state in
            guard state.events < 0, state.poller == nil else { return }
            if eventsReachUs {
                state.events = ProcessEvents.open()
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
}
