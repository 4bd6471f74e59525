import FoundationEssentials
import RetimeSession
import RetimeShared

/// `daemon status`: whether the daemon runs, since when, and what it will
/// do next: end the active session at its planned end, or an interval's
/// event, whichever comes first. Whether it runs is told even when the data
/// cannot be read (`next` is then nil).
public struct DaemonOutlookUseCase: Sendable {
    public struct Outlook: Sendable, Equatable {
        public var running: RunningDaemon?
        /// How long it has run; nil when it does not, or since is unknown.
        public var uptime: TimeInterval?
        public var next: DueWork?

        public init(running: RunningDaemon?, uptime: TimeInterval?, next: DueWork?) {
            self.running = running
            self.uptime = uptime
            self.next = next
        }
    }

    /// What the daemon does next, and when.
    public struct DueWork: Sendable, Equatable {
        public enum What: Sendable, Equatable {
            case endSession
            case interval(IntervalEventKind, schedule: String)
        }

        public var what: What
        public var at: Date

        public init(what: What, at: Date) {
            self.what = what
            self.at = at
        }
    }

    private let daemon: any DaemonPresence
    private let sessions: any SessionRepository
    private let upcoming: UpcomingEventsUseCase
    private let clock: any Clock

    public init(daemon: any DaemonPresence, sessions: any SessionRepository, upcoming: UpcomingEventsUseCase, clock: any Clock) {
        self.daemon = daemon
        self.sessions = sessions
        self.upcoming = upcoming
        self.clock = clock
    }

    public func execute() async -> Outlook {
        let running = daemon.running()
        let now = clock.now()
        return Outlook(running: running, uptime: running?.since.map { now.timeIntervalSince($0) }, next: try? await next(after: now))
    }

    private func next(after now: Date) async throws -> DueWork? {
        let sessionEnd = try await sessions.current()
            .flatMap { $0.isActive ? $0.plannedEnd : nil }
            .map { DueWork(what: .endSession, at: $0) }
        let event = try await upcoming.execute(from: now, count: 1).first
            .map { DueWork(what: .interval($0.kind, schedule: $0.schedule.name), at: $0.at) }
        return [sessionEnd, event].compactMap { $0 }.min { $0.at < $1.at }
    }
}
