import Adapters
import Domain
import Foundation
import Synchronization

/// The Session context wired to in-memory adapters and a hand-driven clock:
/// what each use-case test starts from.
struct SessionWorld {
    let clock = ManualClock()
    let groups = InMemoryGroupRepository()
    let sessions = InMemorySessionRepository()
    let history = InMemorySessionHistory()
    let shield: any Shield
    /// Where the use cases find shields: `shield` alone, unless a test gives its own.
    let shields: any ShieldDirectory
    let spy = InMemoryShield()
    let tracker = InMemoryTracker()
    /// What the hooks and the desktop were told.
    let hooks = InMemoryEventHooks()
    let notifications = InMemoryEventHooks()
    let logs = InMemoryLogHandler()
    let auth: AuthWorld
    let work: Group

    init(shield: (any Shield)? = nil, shields: (any ShieldDirectory)? = nil) async throws {
        self.shield = shield ?? spy
        self.shields = shields ?? FixedShieldDirectory(shield ?? spy)
        auth = AuthWorld(clock: clock)
        work = Group(name: try GroupName("work"), targets: try ["slack.com", "app:mail"].map { try Target(parsing: $0) },
                     createdAt: clock.now())
        try await groups.insert(work)
    }

    var events: SessionEventPublisher {
        SessionEventPublisher(tracker: tracker, hooks: hooks, notifier: notifications, groups: GroupRepositoryLookup(groups: groups),
                              logger: Logger(label: "test.events", handler: logs))
    }
    var active: ActiveSession {
        ActiveSession(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), history: history, shields: shields, clock: clock, devices: FixedDevices(this: "this-device"), events: events,
                      logger: Logger(label: "test", handler: logs))
    }
    var start: StartSessionUseCase {
        StartSessionUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: shields,
                            clock: clock, events: events, active: active, dataLock: InMemoryDataLock())
    }
    var stop: StopSessionUseCase {
        StopSessionUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), history: history, shields: shields, events: events,
                           active: active, override: auth.override)
    }
    var pause: PauseSessionUseCase {
        PauseSessionUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: shields, events: events, active: active,
                            override: auth.override)
    }
    var resume: ResumeSessionUseCase {
        ResumeSessionUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: shields,
                             events: events, active: active)
    }
    var refreshShield: RefreshShieldUseCase {
        RefreshShieldUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: shields, history: history)
    }
    var status: SessionStatusUseCase {
        SessionStatusUseCase(sessions: sessions, active: active)
    }

    /// Starts a session on `work`.
    @discardableResult
    func startWork(_ length: SessionLength = .duration(25 * 60), strict: Bool = false) async throws -> Session {
        try await start.execute(SessionPlan(groupName: "work", length: length, strict: strict)).session
    }

    var shieldState: ShieldState? { get async throws { try await spy.state() } }
    var ended: [Session] { get async throws { try await history.sessions(matching: .all) } }
    var eventNames: [String] { tracker.events.map(\.name) }
}

/// A shield whose every request fails, as a hosts file without write access would.
struct FailingShield: Shield {
    var identity: String { "failing" }
    struct Refused: Error, CustomStringConvertible { var description: String { "permission denied" } }
    func raise(_ targets: [Target], for session: SessionID) async throws { throw Refused() }
    func lower(for session: SessionID) async throws { throw Refused() }
    func state() async throws -> ShieldState? { nil }
    func reach(askingAboutApps: Bool) async -> ShieldReach { ShieldReach(sites: true, apps: askingAboutApps ? .blocked : nil) }
}

/// A shield that works until the test breaks it mid-session (a full disk, a
/// hosts file made read-only): while `stuck` it cannot lift a block, while
/// `refusesRaise` it cannot raise one.
final class StuckShield: Shield {
    var identity: String { "stuck" }
    struct Refused: Error, CustomStringConvertible { var description: String { "no space left on device" } }
    let inner = InMemoryShield()
    func reach(askingAboutApps: Bool) async -> ShieldReach { await inner.reach(askingAboutApps: askingAboutApps) }
    private let isStuck = Mutex(false)
    private let isRefusingRaise = Mutex(false)

    var stuck: Bool {
        get { isStuck.withLock { $0 } }
        set { isStuck.withLock { $0 = newValue } }
    }

    var refusesRaise: Bool {
        get { isRefusingRaise.withLock { $0 } }
        set { isRefusingRaise.withLock { $0 = newValue } }
    }

    func raise(_ targets: [Target], for session: SessionID) async throws {
        if refusesRaise { throw Refused() }
        try await inner.raise(targets, for: session)
    }
    func lower(for session: SessionID) async throws {
        if stuck { throw Refused() }
        try await inner.lower(for: session)
    }
    func state() async throws -> ShieldState? { try await inner.state() }
}
